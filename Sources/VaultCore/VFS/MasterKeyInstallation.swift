import CSQLite

/// The file-control opcode that rewraps a vault's data key under a new master
/// key. SQLite passes unknown opcodes to the VFS (sqlite.org/c3ref/file_control.html),
/// so the header is rewritten through the same descriptor SQLite uses, while
/// the caller holds SQLite's write lock.
let vaultkitFileControlInstallMasterKey: Int32 = 0x5654_4B01

/// The argument of ``vaultkitFileControlInstallMasterKey``.
final class MasterKeyInstallation {
    let currentKey: MasterKey
    let newKey: MasterKey
    var failure: VaultError?
    #if VAULTKIT_TEST_SEAMS
    /// Test seam (debug builds only): stop after writing the new slot, before erasing the old one.
    var stopBeforeErasingOldSlot = false
    #endif

    init(currentKey: MasterKey, newKey: MasterKey) {
        self.currentKey = currentKey
        self.newKey = newKey
    }
}

extension SealedFile {
    /// Rewraps the data key into the inactive key slot under the new master key,
    /// then erases the old slot. Each step is one 128-byte write and an fsync:
    ///
    /// 1. before the new slot is durable, a torn new slot fails its checksum and
    ///    the old slot (old key) still opens the vault;
    /// 2. once it is durable, its higher generation wins: only the new key opens it;
    /// 3. erasing the old slot removes the old key's wrap from this file.
    func installMasterKey(_ request: MasterKeyInstallation) -> Int32 {
        do throws(VaultError) {
            var block = [UInt8](repeating: 0, count: VaultFileHeader.blockSize)
            let readStatus = block.withUnsafeMutableBytes { bytes in
                bytes.baseAddress.map { physicalRead($0, bytes.count, 0) } ?? SQLITE_IOERR_READ_CODE
            }
            guard readStatus == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot read the vault header") }
            var header = try VaultFileHeader.parse(block, path: path)
            let dataKey = try header.unlock(masterKey: request.currentKey, path: path)
            guard let (activeIndex, active) = header.activeSlot else {
                throw VaultError.integrity(IntegrityFailure(path: path, location: .header, reason: "no valid key slot"))
            }
            let target = 1 - activeIndex
            try header.installKey(dataKey: dataKey, masterKey: request.newKey, slotIndex: target, generation: active.generation + 1)
            try writeSlot(target, of: header)
            #if VAULTKIT_TEST_SEAMS
            if request.stopBeforeErasingOldSlot { return SQLITE_OK }
            #endif
            header.slots[activeIndex] = nil
            try writeSlot(activeIndex, of: header)
            return SQLITE_OK
        } catch {
            request.failure = error
            return SQLITE_ERROR
        }
    }

    private func writeSlot(_ index: Int, of header: VaultFileHeader) throws(VaultError) {
        let offset = VaultFileHeader.slotOffsets[index]
        let bytes = Array(header.serialized()[offset..<(offset + VaultFileHeader.slotSize)])
        let status = bytes.withUnsafeBytes { raw in
            raw.baseAddress.map { physicalWrite($0, raw.count, Int64(offset)) } ?? SQLITE_IOERR_WRITE_CODE
        }
        guard status == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot write key slot \(index == 0 ? "A" : "B")") }
        guard physicalSync() == SQLITE_OK else {
            throw VaultError.io(path: path, detail: "cannot fsync the vault header")
        }
    }
}
