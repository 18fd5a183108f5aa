import CSQLite
import Foundation

// MARK: - The vault VFS
//
// OVERVIEW
//
// "vaultkit" is a shim VFS over SQLite's default (unix) VFS. SQLite stays stock:
// it writes plaintext pages; the shim seals every unit on its way to disk and
// opens it on its way back, with XChaCha20-Poly1305 from libsodium. Locking,
// syncing, file names and the -shm wal-index pass through to the unix VFS.
//
// WHAT IS SEALED, BY FILE KIND (xOpen flags)
//
//   SQLITE_OPEN_MAIN_DB      header block + pages sealed in place     (layout .database)
//   SQLITE_OPEN_WAL          header, every frame header, every page   (layout .wal)
//   SQLITE_OPEN_MAIN_JOURNAL 4096-byte blocks, database's page key    (layout .blocks)
//   TEMP_DB, TEMP_JOURNAL,   4096-byte blocks, a random key made at
//   SUBJOURNAL, TRANSIENT_DB open and wiped at close                  (layout .blocks)
//   SUPER_JOURNAL            passed through: it holds file names only
//
// The byte layouts are in SealedFileLayout.swift and VaultFileHeader.swift.
// Every unit lies inside one 4096-byte page of its file, so a process killed
// mid-write (Linux stops a write() for a fatal signal only between pages)
// never leaves a torn unit that would read as tampering.
//
// IMPLEMENTATION NOTES (each a pitfall verified in SQLite's source)
//
//  1. WAL frame checksums cover the whole page, reserved tail included
//     (wal.c:822, 853): reads return the tail as zeros, writes require it zero.
//  2. The WAL header and every frame header are sealed as units of their own:
//     a plaintext frame header's running checksum would confirm guesses about
//     the page (wal.c:822).
//  3. A frame header and its page are written by separate xWrite calls, while
//     recovery reads whole frames in one xRead (wal.c:3529, 1338): every call
//     is split into units. Whole WAL frames are sealed into a batch and written
//     a group at a time, before anything could read or publish them: at the
//     page of a commit frame, at a group's end, and before any other call on
//     the handle (WALWriteBatch.swift). Nothing else is buffered across calls.
//  4. Page 1 is read in pieces (100 bytes at 0, 16 at 24; pager.c:3846): every
//     read opens whole units and serves any sub-range.
//  5. The reserve must be set before the first write (main.c:3946): the
//     connection sets it when it creates a vault, and writes check it.
//  6. mmap would hand SQLite ciphertext: io_methods are version 2, no xFetch
//     (pager.c:3483).
//  7. Rollback journals still appear (vault creation, VACUUM INTO outputs,
//     a user's journal_mode): they are sealed like any file.
//  8. Temporary files reach disk when temp_store=FILE (vdbesort.c:1313): they
//     are sealed under an ephemeral key.
//  9. Without power-safe overwrite SQLite splits WAL writes at sector
//     boundaries (wal.c:1547): the shim declares SQLITE_IOCAP_POWERSAFE_OVERWRITE,
//     and a partial-unit write is handled by read-modify-write anyway.
// 10. The -shm wal-index stays plaintext (page numbers, frame counts, salts):
//     documented in SECURITY.md.
// 11. The unix VFS zero-fills short reads: only units that exist are opened.
// 12. An all-zero unit is never "empty": it fails authentication like any
//     other altered unit.
// 13. Power loss tears the end of a log: a WAL unit in the log's last
//     transaction, or a rollback-journal block with no valid block after it,
//     that fails to open reads as the end of the log (WALTail.swift,
//     SealedFile.isTornJournalTail), as stock SQLite drops a torn tail. Damage
//     anywhere else is still an integrity failure.
// 14. SQLite reads the first 100 bytes of page 1 raw when it opens, before WAL
//     recovery (btree.c, sqlite3PagerReadFileheader): a page 1 torn by power
//     loss mid-checkpoint gets a stand-in for those bytes (geometry only); the
//     page itself is authenticated when read (SealedFile.readDatabaseHeader).
// 15. The unix VFS writes at most 0x1ffff bytes a call (os_unix.c,
//     seekAndWrite) and reports a longer write as SQLITE_FULL: a batch is
//     written 31 pages a call.
//
// WHAT IS LEFT OUT
//
// Replay: an old copy of a page or of the whole file, put back, authenticates
// (as in SQLCipher, SEE and Realm). File sizes and page counts are visible.

/// The page-sealing VFS, registered once per process under the name `"vaultkit"`.
enum VaultVFS {
    static let name = "vaultkit"

    /// Safe to share: written once (in a `static let` initialiser, which Swift runs once), then only read.
    private struct Registration: @unchecked Sendable {
        let vfs: UnsafeMutablePointer<sqlite3_vfs>?
        let failure: VaultError?
    }

    private static let registration: Registration = {
        // First SQLite call of the process (usually): drop the allocation-statistics mutex.
        _ = vaultkit_disable_memory_statistics()
        guard let underlying = sqlite3_vfs_find(nil) else {
            return Registration(vfs: nil, failure: .cryptoUnavailable("SQLite has no default VFS to wrap"))
        }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: makeVFS(wrapping: underlying))
        let status = sqlite3_vfs_register(vfs, 0)
        guard status == SQLITE_OK else {
            return Registration(vfs: nil, failure: .sqlite(SQLiteError(extendedCode: status, message: "could not register the vault VFS")))
        }
        return Registration(vfs: vfs, failure: nil)
    }()

    /// Registers the VFS (once; safe from any thread).
    static func register() throws(VaultError) {
        try Sodium.ensureInitialised()
        if let failure = registration.failure { throw failure }
    }

    /// The full path SQLite will use for `path` (what `xOpen` receives).
    static func fullPathname(_ path: String) -> String {
        guard let vfs = registration.vfs, let xFullPathname = vfs.pointee.xFullPathname else { return path }
        let capacity = Int(vfs.pointee.mxPathname) + 1
        var buffer = [CChar](repeating: 0, count: capacity)
        let status = xFullPathname(vfs, path, Int32(capacity), &buffer)
        guard status == SQLITE_OK || status == (SQLITE_OK | (2 << 8)) else { return path }   // SQLITE_OK_SYMLINK
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

// MARK: - sqlite3_vfs

private func underlyingVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
    forwardedVFS(vfs)
}

private func makeVFS(wrapping underlying: UnsafeMutablePointer<sqlite3_vfs>) -> sqlite3_vfs {
    var vfs = sqlite3_vfs()
    vfs.iVersion = 2
    vfs.szOsFile = Int32(vaultkit_wrapped_offset()) + underlying.pointee.szOsFile
    vfs.mxPathname = underlying.pointee.mxPathname
    vfs.zName = UnsafePointer(strdup(VaultVFS.name))
    vfs.pAppData = UnsafeMutableRawPointer(underlying)
    vfs.xOpen = vaultOpen

    // Pass-through: names, deletion, access checks, randomness, time.
    vfs.xDelete = { vfs, name, syncDirectory in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xDelete else { return SQLITE_IOERR }
        return f(u, name, syncDirectory)
    }
    vfs.xAccess = { vfs, name, flags, result in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xAccess else { return SQLITE_IOERR }
        return f(u, name, flags, result)
    }
    vfs.xFullPathname = { vfs, name, count, output in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xFullPathname else { return SQLITE_IOERR }
        return f(u, name, count, output)
    }
    vfs.xDlOpen = { vfs, name in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xDlOpen else { return nil }
        return f(u, name)
    }
    vfs.xDlError = { vfs, count, message in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xDlError else { return }
        f(u, count, message)
    }
    vfs.xDlSym = { vfs, handle, symbol in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xDlSym else { return nil }
        return f(u, handle, symbol)
    }
    vfs.xDlClose = { vfs, handle in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xDlClose else { return }
        f(u, handle)
    }
    vfs.xGetLastError = { vfs, count, message in
        guard let u = underlyingVFS(vfs), let f = u.pointee.xGetLastError else { return 0 }
        return f(u, count, message)
    }
    installForwardedClockAndRandomness(&vfs)
    return vfs
}

// MARK: - xOpen

private let openKindMask: Int32 = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_TEMP_DB
    | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_TRANSIENT_DB | SQLITE_OPEN_SUBJOURNAL
    | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL

private func vaultOpen(
    _ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: UnsafePointer<CChar>?,
    _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let file, let underlying = underlyingVFS(vfs), let openWrapped = underlying.pointee.xOpen else { return SQLITE_CANTOPEN }
    let handle = FileHandles.cleared(file)
    let wrapped = (UnsafeMutableRawPointer(file) + vaultkit_wrapped_offset()).assumingMemoryBound(to: sqlite3_file.self)
    let status = openWrapped(underlying, name, wrapped, flags, outFlags)
    guard status == SQLITE_OK else { return status }

    do {
        let state = try makeSealedFile(wrapped: wrapped, name: name, flags: flags)
        handle.pointee.state = Unmanaged.passRetained(state).toOpaque()
        handle.pointee.base.pMethods = sealedIOMethods.pointer
        return SQLITE_OK
    } catch {
        VaultRegistry.recordFailure(error)
        if let methods = wrapped.pointee.pMethods, let close = methods.pointee.xClose { _ = close(wrapped) }
        switch error {
        case .notAVault, .unsupportedFormat: return SQLITE_NOTADB
        case .wrongKey: return SQLITE_AUTH
        case .integrity: return SQLITE_IOERR_DATA_CODE
        default: return SQLITE_CANTOPEN
        }
    }
}

private func makeSealedFile(wrapped: UnsafeMutablePointer<sqlite3_file>, name: UnsafePointer<CChar>?, flags: Int32) throws(VaultError) -> SealedFile {
    let path = name.map { String(cString: $0) } ?? "(temporary file)"
    switch flags & openKindMask {
    case SQLITE_OPEN_MAIN_DB:
        return try openMainDatabase(wrapped: wrapped, path: path, writable: flags & SQLITE_OPEN_READWRITE != 0)
    case SQLITE_OPEN_WAL, SQLITE_OPEN_MAIN_JOURNAL:
        guard let name, let databaseName = sqlite3_filename_database(name) else {
            throw VaultError.misuse("a WAL or journal was opened without its database")
        }
        let databasePath = String(cString: databaseName)
        guard let keys = VaultRegistry.keys(forDatabase: databasePath) else {
            throw VaultError.misuse("\(path) was opened while its vault \(databasePath) is not open through VaultKit")
        }
        let sealer = UnitSealer(key: keys.pageKey, fileSalt: keys.fileSalt)
        let layout: SealedFileLayout = flags & SQLITE_OPEN_WAL != 0 ? .wal : .blocks(.journalBlock)
        return SealedFile(wrapped: wrapped, mode: .sealed(layout: layout, sealer: sealer), path: path, registeredDatabasePath: nil)
    case SQLITE_OPEN_SUPER_JOURNAL:
        return SealedFile(wrapped: wrapped, mode: .passthrough, path: path, registeredDatabasePath: nil)
    default:
        // Temporary database, temporary or statement journal, transient table:
        // sealed under a key that exists only while this handle is open.
        let sealer = UnitSealer(key: try KeyHierarchy.ephemeralKey(), fileSalt: Sodium.randomBytes(count: 32))
        return SealedFile(wrapped: wrapped, mode: .sealed(layout: .blocks(.temporaryBlock), sealer: sealer), path: path, registeredDatabasePath: nil)
    }
}

/// Opens (or, for an empty file with the context's permission, creates) a vault file.
private func openMainDatabase(wrapped: UnsafeMutablePointer<sqlite3_file>, path: String, writable: Bool) throws(VaultError) -> SealedFile {
    let probe = SealedFile(wrapped: wrapped, mode: .passthrough, path: path, registeredDatabasePath: nil)
    let (sizeStatus, size) = probe.physicalSize()
    guard sizeStatus == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot read the file size (SQLite code \(sizeStatus))") }
    let context = VaultRegistry.openContext

    let header: VaultFileHeader
    let dataKey: SecureBytes
    if size == 0 {
        guard let context else { throw VaultError.missingKey(path: path) }
        guard writable, context.mayCreate else { throw VaultError.notAVault(path: path, reason: "the file is empty") }
        (header, dataKey) = try VaultFileHeader.create(masterKey: context.masterKey)
        let block = header.serialized()
        let status = block.withUnsafeBytes { bytes in
            bytes.baseAddress.map { probe.physicalWrite($0, bytes.count, 0) } ?? SQLITE_IOERR_WRITE_CODE
        }
        guard status == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot write the vault header (SQLite code \(status))") }
        guard probe.physicalSync() == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot fsync the new vault header") }
    } else {
        var block = [UInt8](repeating: 0, count: Int(min(size, Int64(VaultFileHeader.blockSize))))
        let status = block.withUnsafeMutableBytes { bytes in
            bytes.baseAddress.map { probe.physicalRead($0, bytes.count, 0) } ?? SQLITE_IOERR_READ_CODE
        }
        guard status == SQLITE_OK else { throw VaultError.io(path: path, detail: "cannot read the vault header (SQLite code \(status))") }
        header = try VaultFileHeader.parse(block, path: path)
        guard let context else { throw VaultError.missingKey(path: path) }
        dataKey = try header.unlock(masterKey: context.masterKey, path: path)
        // A vault always holds page 1 (VaultKit creates it before the file is
        // visible); a header without pages, or a page cut short, is truncation.
        let body = size - Int64(VaultFileHeader.blockSize)
        if body == 0 {
            throw VaultError.integrity(IntegrityFailure(path: path, location: .databasePage(1), reason: "the file holds a vault header but no pages: it was truncated"))
        }
        if body % Int64(VaultFileHeader.pageSize) != 0 {
            let page = UInt64(body / Int64(VaultFileHeader.pageSize)) + 1
            throw VaultError.integrity(IntegrityFailure(path: path, location: .databasePage(page), reason: "the file ends inside this page: it was truncated"))
        }
    }
    let keys = DatabaseKeys(fileSalt: header.fileSalt, pageKey: try KeyHierarchy.pageKey(dataKey: dataKey))
    VaultRegistry.retainDatabase(path: path, keys: keys)
    let sealer = UnitSealer(key: keys.pageKey, fileSalt: keys.fileSalt, suite: header.suite)
    return SealedFile(wrapped: wrapped, mode: .sealed(layout: .database, sealer: sealer), path: path, registeredDatabasePath: path)
}

// MARK: - sqlite3_io_methods

private func sealedFile(_ file: UnsafeMutablePointer<sqlite3_file>?) -> SealedFile? {
    FileHandles.object(file, as: SealedFile.self)?.takeUnretainedValue()
}

private func wrappedMethods(_ file: UnsafeMutablePointer<sqlite3_file>?) -> (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods)? {
    guard let state = sealedFile(file) else { return nil }
    return (state.wrapped, state.wrapped.pointee.pMethods.pointee)
}

/// The io_methods table every vault file uses. Version 2: no xFetch, so SQLite
/// never memory-maps ciphertext (pitfall 6).
/// Built once, then only read (see IOMethodsTable).
private let sealedIOMethods = IOMethodsTable(methods: {
    var m = sqlite3_io_methods()
    m.iVersion = 2
    m.xClose = { file in
        guard let object = FileHandles.object(file, as: SealedFile.self) else { return SQLITE_OK }
        let wrapped = object.takeUnretainedValue().wrapped
        // Frames still batched were never published (see WALWriteBatch): written all the same.
        var status = object.takeUnretainedValue().flushWALBatch()
        if let methods = wrapped.pointee.pMethods, let close = methods.pointee.xClose {
            let closed = close(wrapped)
            if status == SQLITE_OK { status = closed }
        }
        FileHandles.release(file, object)
        return status
    }
    m.xRead = { file, buffer, amount, offset in
        guard let state = sealedFile(file), let buffer else { return SQLITE_IOERR_READ_CODE }
        return state.read(buffer, amount: Int(amount), offset: offset)
    }
    m.xWrite = { file, buffer, amount, offset in
        guard let state = sealedFile(file), let buffer else { return SQLITE_IOERR_WRITE_CODE }
        return state.write(buffer, amount: Int(amount), offset: offset)
    }
    m.xTruncate = { file, size in
        guard let state = sealedFile(file) else { return SQLITE_IOERR_TRUNCATE_CODE }
        return state.truncate(size)
    }
    m.xFileSize = { file, size in
        guard let state = sealedFile(file), let size else { return SQLITE_IOERR_FSTAT_CODE }
        let (status, logical) = state.fileSize()
        size.pointee = logical
        return status
    }
    m.xFileControl = { file, op, argument in
        guard let state = sealedFile(file) else { return SQLITE_NOTFOUND }
        let flushed = state.flushWALBatch()
        guard flushed == SQLITE_OK else { return flushed }
        return vaultFileControl(state, op, argument)
    }
    m.xDeviceCharacteristics = { file in
        // Units are rewritten whole; partial-sector padding is not needed (pitfall 9).
        guard sealedFile(file) != nil else { return 0 }
        return SQLITE_IOCAP_POWERSAFE_OVERWRITE
    }

    // Pass-through: locking, syncing, sector size and the -shm wal-index.
    m.xSync = { file, flags in
        guard let (w, io) = wrappedMethods(file), let f = io.xSync else { return SQLITE_IOERR }
        if let state = sealedFile(file) {
            let flushed = state.flushWALBatch()
            guard flushed == SQLITE_OK else { return flushed }
            if let injected = FaultInjection.failure(.sync, path: state.path) { return injected }
        }
        let status = f(w, flags)
        if status == SQLITE_OK, let state = sealedFile(file) { FaultInjection.didSync(state.path) }
        return status
    }
    m.xLock = { file, level in
        guard let (w, io) = wrappedMethods(file), let f = io.xLock else { return SQLITE_IOERR }
        if let state = sealedFile(file), let injected = FaultInjection.failure(.lock, path: state.path) { return injected }
        return f(w, level)
    }
    m.xUnlock = { file, level in
        guard let (w, io) = wrappedMethods(file), let f = io.xUnlock else { return SQLITE_IOERR }
        return f(w, level)
    }
    m.xCheckReservedLock = { file, result in
        guard let (w, io) = wrappedMethods(file), let f = io.xCheckReservedLock else { return SQLITE_IOERR }
        return f(w, result)
    }
    m.xSectorSize = { file in
        guard let (w, io) = wrappedMethods(file), let f = io.xSectorSize else { return 4096 }
        return f(w)
    }
    m.xShmMap = { file, region, size, extend, pointer in
        guard let (w, io) = wrappedMethods(file), let f = io.xShmMap else { return SQLITE_IOERR }
        return f(w, region, size, extend, pointer)
    }
    m.xShmLock = { file, offset, count, flags in
        guard let (w, io) = wrappedMethods(file), let f = io.xShmLock else { return SQLITE_IOERR }
        return f(w, offset, count, flags)
    }
    m.xShmBarrier = { file in
        guard let (w, io) = wrappedMethods(file), let f = io.xShmBarrier else { return }
        f(w)
    }
    m.xShmUnmap = { file, delete in
        guard let (w, io) = wrappedMethods(file), let f = io.xShmUnmap else { return SQLITE_OK }
        return f(w, delete)
    }
    return m
}())

/// File controls: translate sizes, refuse settings a vault cannot honour,
/// pass the rest to the unix VFS.
private func vaultFileControl(_ state: SealedFile, _ op: Int32, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    let io = state.wrapped.pointee.pMethods.pointee
    switch op {
    case SQLITE_FCNTL_SIZE_HINT:
        guard case .sealed(let layout, _) = state.mode, let argument else { break }
        let logical = argument.load(as: sqlite3_int64.self)
        var physical = layout.physicalSize(logicalSize: logical)
        return io.xFileControl?(state.wrapped, op, &physical) ?? SQLITE_NOTFOUND
    case vaultkitFileControlInstallMasterKey:
        guard case .sealed(.database, _) = state.mode, let argument else { return SQLITE_NOTFOUND }
        return state.installMasterKey(Unmanaged<MasterKeyInstallation>.fromOpaque(argument).takeUnretainedValue())
    case SQLITE_FCNTL_PRAGMA:
        guard case .sealed(.database, _) = state.mode, let argument else { break }
        let arguments = argument.assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
        guard let namePointer = arguments[1] else { break }
        let name = String(cString: namePointer).lowercased()
        if name == "page_size", let valuePointer = arguments[2] {
            let value = String(cString: valuePointer).trimmingCharacters(in: .whitespaces)
            if Int(value) != VaultFileHeader.pageSize {
                arguments[0] = sqliteAllocatedString("VaultKit vaults use 4096-byte pages; page_size cannot be changed")
                return SQLITE_ERROR
            }
        }
    default:
        break
    }
    return io.xFileControl?(state.wrapped, op, argument) ?? SQLITE_NOTFOUND
}

/// A copy of `text` in memory from `sqlite3_malloc`, which SQLite frees
/// (sqlite3_mprintf is variadic and not callable from Swift).
func sqliteAllocatedString(_ text: String) -> UnsafeMutablePointer<CChar>? {
    let utf8 = Array(text.utf8CString)
    guard let memory = sqlite3_malloc64(UInt64(utf8.count)) else { return nil }
    let pointer = memory.assumingMemoryBound(to: CChar.self)
    utf8.withUnsafeBufferPointer { source in
        for (offset, character) in source.enumerated() { pointer[offset] = character }
    }
    return pointer
}
