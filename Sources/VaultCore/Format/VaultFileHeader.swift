import CSodium

/// The 4096-byte header block at the start of every vault file (format v1).
///
/// ```
/// offset  size  field
/// ------  ----  -----------------------------------------------------------
///      0   100  decoy SQLite header: "SQLite format 3\0", page size 4096,
///               WAL read/write versions 2/2, reserve 40 (see below)
///    100     8  magic "VaultKit"
///    108     2  format version, little-endian (1)
///    110     2  cipher suite (1 = XChaCha20-Poly1305)
///    112     4  page size (4096)
///    116     2  reserved bytes per page (40 = nonce 24 + tag 16)
///    118     2  header block size (4096)
///    120    32  file salt (random, bound into every unit's associated data)
///    152   104  zero
///    256   128  key slot A
///    384   128  key slot B
///    512  3584  zero
/// ```
///
/// Bytes 100..<152 are the *static header*: fixed at creation, bound into the
/// key-wrap associated data and every slot checksum.
///
/// Key slot (128 bytes):
/// ```
///   0   8  generation, little-endian (0 = empty slot)
///   8  16  KEK salt (random per wrap)
///  24  72  wrapped data key: nonce(24) ‖ ciphertext(32) ‖ tag(16)
///  96  16  checksum: BLAKE2b-128(personal "VaultKit-slot-v1",
///          static header ‖ slot index ‖ slot bytes 0..<96)
/// 112  16  zero
/// ```
/// The checksum is keyless: it lets `vault info` and the opener tell a torn or
/// blank slot from a wrong key. Authenticity comes from the wrap's AEAD tag,
/// whose associated data is `static header ‖ slot index ‖ generation`.
///
/// Readers take the valid slot with the highest generation and try only that
/// one: after a master-key rotation the old key must stop working.
///
/// Why a decoy SQLite header: iOS inspects the first bytes of WAL databases in
/// shared app-group containers before suspending an app that holds a file lock;
/// a recognisable header keeps it from killing the app (SQLCipher's
/// plaintext-header option exists for the same reason).
struct VaultFileHeader: Sendable {
    static let blockSize = 4096
    static let pageSize = 4096
    static let reservedBytesPerPage = UnitSealer.overhead   // 40
    static let formatVersion: UInt16 = 1
    static let magic: [UInt8] = Array("VaultKit".utf8)
    static let sqliteMagic: [UInt8] = Array("SQLite format 3\0".utf8)
    static let staticRange = 100..<152
    static let slotOffsets = [256, 384]
    static let slotSize = 128
    private static let slotPersonal = Array("VaultKit-slot-v1".utf8)

    /// One key slot: the data key wrapped under one master key.
    struct KeySlot: Sendable, Equatable {
        var generation: UInt64
        var kekSalt: [UInt8]      // 16 bytes
        var wrappedKey: [UInt8]   // 72 bytes
    }

    var suite: CipherSuite
    var fileSalt: [UInt8]
    /// Slots A and B; `nil` for an empty or damaged slot.
    var slots: [KeySlot?]

    // MARK: Creation and unlocking

    /// A header for a new vault: a random salt and a random data key wrapped
    /// under `masterKey` in slot A (generation 1).
    static func create(masterKey: MasterKey) throws(VaultError) -> (header: VaultFileHeader, dataKey: SecureBytes) {
        try Sodium.ensureInitialised()
        var header = VaultFileHeader(suite: .xchacha20Poly1305, fileSalt: Sodium.randomBytes(count: 32), slots: [nil, nil])
        let dataKey = try SecureBytes.random(count: KeyHierarchy.dataKeyByteCount)
        try header.installKey(dataKey: dataKey, masterKey: masterKey, slotIndex: 0, generation: 1)
        return (header, dataKey)
    }

    /// The valid slot with the highest generation.
    var activeSlot: (index: Int, slot: KeySlot)? {
        var best: (Int, KeySlot)?
        for (index, slot) in slots.enumerated() {
            guard let slot else { continue }
            if let current = best, current.1.generation >= slot.generation { continue }
            best = (index, slot)
        }
        return best.map { (index: $0.0, slot: $0.1) }
    }

    /// Unwraps the data key with `masterKey` from the active slot.
    /// - Throws: ``VaultError/wrongKey(path:)`` when the key does not unwrap it.
    func unlock(masterKey: MasterKey, path: String) throws(VaultError) -> SecureBytes {
        guard let (index, slot) = activeSlot else {
            throw VaultError.integrity(IntegrityFailure(path: path, location: .header, reason: "both key slots are damaged or empty"))
        }
        let kek = try KeyHierarchy.keyEncryptionKey(master: masterKey, fileSalt: fileSalt, kekSalt: slot.kekSalt)
        guard let dataKey = try KeyHierarchy.unwrap(slot.wrappedKey, kek: kek, associatedData: wrapAssociatedData(slotIndex: index, generation: slot.generation)) else {
            throw VaultError.wrongKey(path: path)
        }
        return dataKey
    }

    /// Wraps `dataKey` under `masterKey` into `slotIndex` with `generation`.
    mutating func installKey(dataKey: SecureBytes, masterKey: MasterKey, slotIndex: Int, generation: UInt64) throws(VaultError) {
        let kekSalt = Sodium.randomBytes(count: KeyHierarchy.kekSaltByteCount)
        let kek = try KeyHierarchy.keyEncryptionKey(master: masterKey, fileSalt: fileSalt, kekSalt: kekSalt)
        let wrapped = KeyHierarchy.wrap(dataKey: dataKey, kek: kek, associatedData: wrapAssociatedData(slotIndex: slotIndex, generation: generation))
        slots[slotIndex] = KeySlot(generation: generation, kekSalt: kekSalt, wrappedKey: wrapped)
    }

    private func wrapAssociatedData(slotIndex: Int, generation: UInt64) -> [UInt8] {
        staticBytes() + [UInt8(slotIndex)] + littleEndianBytes(generation)
    }

    // MARK: Serialisation

    /// The decoy first 100 bytes: a valid-looking, empty WAL-mode SQLite header.
    static func decoySQLiteHeader() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 100)
        bytes.replaceSubrange(0..<16, with: sqliteMagic)
        bytes[16] = 0x10; bytes[17] = 0x00         // page size 4096, big-endian
        bytes[18] = 2; bytes[19] = 2               // WAL write / read versions
        bytes[20] = UInt8(reservedBytesPerPage)    // reserved bytes per page
        bytes[21] = 64; bytes[22] = 32; bytes[23] = 32  // payload fractions (fixed by the SQLite format)
        bytes[47] = 4                              // schema format 4
        bytes[59] = 1                              // text encoding: UTF-8
        return bytes
    }

    private func staticBytes() -> [UInt8] {
        var bytes = Self.magic
        bytes += littleEndianBytes(Self.formatVersion)
        bytes += littleEndianBytes(suite.rawValue)
        bytes += littleEndianBytes(UInt32(Self.pageSize))
        bytes += littleEndianBytes(UInt16(Self.reservedBytesPerPage))
        bytes += littleEndianBytes(UInt16(Self.blockSize))
        bytes += fileSalt
        assert(bytes.count == Self.staticRange.count)
        return bytes
    }

    /// The 4096-byte block as written to disk.
    func serialized() -> [UInt8] {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        block.replaceSubrange(0..<100, with: Self.decoySQLiteHeader())
        let statics = staticBytes()
        block.replaceSubrange(Self.staticRange, with: statics)
        for (index, slot) in slots.enumerated() {
            guard let slot else { continue }
            var slotBytes = littleEndianBytes(slot.generation) + slot.kekSalt + slot.wrappedKey
            slotBytes += Self.slotChecksum(staticBytes: statics, slotIndex: index, body: slotBytes)
            let offset = Self.slotOffsets[index]
            block.replaceSubrange(offset..<(offset + slotBytes.count), with: slotBytes)
        }
        return block
    }

    private static func slotChecksum(staticBytes: [UInt8], slotIndex: Int, body: [UInt8]) -> [UInt8] {
        let input = staticBytes + [UInt8(slotIndex)] + body
        var output = [UInt8](repeating: 0, count: 16)
        _ = crypto_generichash_blake2b_salt_personal(&output, 16, input, UInt64(input.count), nil, 0, nil, slotPersonal)
        return output
    }

    /// Each slot as `vault info` reports it (no key needed).
    static func slotStates(_ block: [UInt8]) -> [VaultMaintenance.VaultInfo.SlotState] {
        guard block.count >= blockSize else { return [] }
        let statics = Array(block[staticRange])
        return slotOffsets.enumerated().map { index, offset in
            let slot = Array(block[offset..<(offset + slotSize)])
            if slot.allSatisfy({ $0 == 0 }) { return .empty }
            let body = Array(slot[0..<96])
            let generation = readLittleEndian(UInt64.self, block, at: offset)
            guard generation > 0, slotChecksum(staticBytes: statics, slotIndex: index, body: body) == Array(slot[96..<112]) else {
                return .damaged
            }
            return .valid(generation: generation)
        }
    }

    /// Parses a header block.
    /// - Parameters:
    ///   - block: the first bytes of the file (up to 4096).
    ///   - fileSize: the file's size on disk, to name a cut-short header.
    /// - Throws: ``VaultError/notAVault(path:reason:)``, ``VaultError/unsupportedFormat(path:detail:)``,
    ///   or ``VaultError/integrity(_:)`` when both key slots are damaged.
    static func parse(_ block: [UInt8], path: String) throws(VaultError) -> VaultFileHeader {
        if block.isEmpty {
            throw VaultError.notAVault(path: path, reason: "the file is empty")
        }
        let hasVaultMagic = block.count >= 108 && Array(block[100..<108]) == magic
        let hasSQLiteMagic = block.count >= 16 && Array(block[0..<16]) == sqliteMagic
        guard hasVaultMagic else {
            if hasSQLiteMagic {
                throw VaultError.notAVault(path: path, reason: "it is a plain, unencrypted SQLite database (VaultKit opens only encrypted vaults)")
            }
            throw VaultError.notAVault(path: path, reason: "it does not start with a VaultKit header (\(block.count < blockSize ? "\(block.count) bytes long" : "unrecognised content"))")
        }
        guard block.count >= blockSize else {
            throw VaultError.notAVault(path: path, reason: "the header is cut short (\(block.count) of \(blockSize) bytes)")
        }
        let version = readLittleEndian(UInt16.self, block, at: 108)
        guard version == formatVersion else {
            throw VaultError.unsupportedFormat(path: path, detail: "format version \(version) (this library reads version \(formatVersion))")
        }
        let suiteValue = readLittleEndian(UInt16.self, block, at: 110)
        guard let suite = CipherSuite(rawValue: suiteValue) else {
            throw VaultError.unsupportedFormat(path: path, detail: "cipher suite \(suiteValue)")
        }
        let pageSize = readLittleEndian(UInt32.self, block, at: 112)
        let reserve = readLittleEndian(UInt16.self, block, at: 116)
        let headerSize = readLittleEndian(UInt16.self, block, at: 118)
        guard pageSize == UInt32(Self.pageSize), reserve == UInt16(reservedBytesPerPage), headerSize == UInt16(blockSize) else {
            throw VaultError.unsupportedFormat(path: path, detail: "page size \(pageSize), reserve \(reserve), header \(headerSize) (v1 uses 4096, 40, 4096)")
        }
        let statics = Array(block[staticRange])
        var header = VaultFileHeader(suite: suite, fileSalt: Array(block[120..<152]), slots: [nil, nil])
        for (index, offset) in slotOffsets.enumerated() {
            let body = Array(block[offset..<(offset + 96)])
            let checksum = Array(block[(offset + 96)..<(offset + 112)])
            let generation = readLittleEndian(UInt64.self, block, at: offset)
            guard generation > 0, slotChecksum(staticBytes: statics, slotIndex: index, body: body) == checksum else { continue }
            header.slots[index] = KeySlot(generation: generation, kekSalt: Array(body[8..<24]), wrappedKey: Array(body[24..<96]))
        }
        guard header.activeSlot != nil else {
            throw VaultError.integrity(IntegrityFailure(path: path, location: .header, reason: "both key slots are damaged or empty"))
        }
        return header
    }
}

// MARK: - Little-endian helpers

func littleEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

func readLittleEndian<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
    var value: T = 0
    for i in 0..<MemoryLayout<T>.size {
        value |= T(bytes[offset + i]) << (8 * i)
    }
    return value
}

extension VaultFileHeader {
    /// The first 100 bytes of page 1 as every vault has them, but for what
    /// changes with the data (counters, sizes, cookies: zero): served when the
    /// real ones are torn and SQLite only wants the file's geometry (see
    /// SealedFile.readDatabaseHeader).
    static func sqliteHeaderStandIn(walMode: Bool) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 100)
        for (index, byte) in "SQLite format 3".utf8.enumerated() { header[index] = byte }
        header[16] = UInt8(pageSize >> 8)
        header[17] = UInt8(pageSize & 0xFF)
        header[18] = walMode ? 2 : 1                  // file format write version (2: WAL)
        header[19] = walMode ? 2 : 1                  // read version
        header[20] = UInt8(UnitSealer.overhead)       // reserved bytes per page: nonce and tag
        header[21] = 64                               // maximum embedded payload fraction
        header[22] = 32                               // minimum embedded payload fraction
        header[23] = 32                               // leaf payload fraction
        header[47] = 4                                // schema format number
        header[59] = 1                                // text encoding: UTF-8
        return header
    }
}

