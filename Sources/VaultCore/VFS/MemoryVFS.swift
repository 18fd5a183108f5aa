import CSQLite
import Foundation

// MARK: - The in-memory VFS
//
// "vaultkit-memory" backs `inMemoryIdentifier` vaults. Every file it opens —
// the database, its rollback journal, temporary files — is a byte buffer in
// this process; no method touches the file system (the only calls it forwards
// to the default VFS are randomness, sleep and the clock). So an in-memory
// vault cannot leave plaintext on disk, whatever SQLite decides to spill.
//
// Files are named `/vaultkit-memory/<identifier>`; connections that open the
// same name share the bytes and coordinate through SQLite's five lock levels,
// implemented here as in os_unix.c but between handles of one process. When
// the last handle on a database closes, the database and its journal vanish.
//
// io_methods are version 1 (no shared memory), so SQLite keeps these
// databases in rollback-journal mode: WAL needs an -shm wal-index.

/// Registration and the shared file table of the in-memory VFS.
enum MemoryVFS {
    static let name = "vaultkit-memory"

    /// Safe to share: written once (in a `static let` initialiser), then only read.
    private struct Registration: @unchecked Sendable {
        let vfs: UnsafeMutablePointer<sqlite3_vfs>?
    }

    private static let registration: Registration = {
        guard let underlying = sqlite3_vfs_find(nil) else { return Registration(vfs: nil) }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: makeMemoryVFS(clock: underlying))
        guard sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { return Registration(vfs: nil) }
        return Registration(vfs: vfs)
    }()

    /// Registers the VFS (once; safe from any thread).
    static func register() throws(VaultError) {
        guard registration.vfs != nil else {
            throw VaultError.cryptoUnavailable("could not register the in-memory VFS")
        }
    }

    /// The SQLite file name of an in-memory vault.
    static func path(forIdentifier identifier: String) -> String {
        "/vaultkit-memory/" + identifier
    }
}

/// Counters that let tests see what the in-memory VFS served.
public struct MemoryVFSStatistics: Sendable, Equatable {
    /// Database files opened.
    public var databaseOpens = 0
    /// Rollback journals opened.
    public var journalOpens = 0
    /// Temporary files (sorter, temp tables, statement journals) opened.
    public var temporaryOpens = 0
}

/// One in-memory file and its lock state.
final class MemoryFileNode {
    var bytes: [UInt8] = []
    var openHandles = 0
    // SQLite lock state across handles (os_unix.c semantics).
    var sharedHolders = 0
    var reservedHolder: ObjectIdentifier?
    var pendingHolder: ObjectIdentifier?
    var exclusiveHolder: ObjectIdentifier?
}

/// The process-wide table of in-memory files.
///
/// `@unchecked Sendable` is safe because `files` and `statistics` are only
/// touched with `lock` held (every VFS callback takes it).
final class MemoryFileSystem: @unchecked Sendable {
    static let shared = MemoryFileSystem()
    let lock = NSLock()
    var files: [String: MemoryFileNode] = [:]
    var statistics = MemoryVFSStatistics()

    /// Whether any file with this name prefix is still alive (for tests).
    func hasFiles(withPrefix prefix: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return files.keys.contains { $0.hasPrefix(prefix) }
    }

    func currentStatistics() -> MemoryVFSStatistics {
        lock.lock(); defer { lock.unlock() }
        return statistics
    }
}

/// One open handle on an in-memory file.
final class MemoryFile {
    let node: MemoryFileNode
    let name: String?
    let isMainDatabase: Bool
    let deleteOnClose: Bool
    var lockLevel: Int32 = SQLITE_LOCK_NONE

    init(node: MemoryFileNode, name: String?, isMainDatabase: Bool, deleteOnClose: Bool) {
        self.node = node
        self.name = name
        self.isMainDatabase = isMainDatabase
        self.deleteOnClose = deleteOnClose
    }
}

private func makeMemoryVFS(clock: UnsafeMutablePointer<sqlite3_vfs>) -> sqlite3_vfs {
    var vfs = sqlite3_vfs()
    vfs.iVersion = 2
    vfs.szOsFile = Int32(MemoryLayout<VaultFileHandle>.stride)
    vfs.mxPathname = 512
    vfs.zName = UnsafePointer(strdup(MemoryVFS.name))
    vfs.pAppData = UnsafeMutableRawPointer(clock)
    vfs.xOpen = memoryOpen
    vfs.xDelete = { _, name, _ in
        guard let name else { return SQLITE_OK }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        fs.files[String(cString: name)] = nil   // open handles keep their node, as unlink() does
        return SQLITE_OK
    }
    vfs.xAccess = { _, name, _, result in
        guard let name, let result else { return SQLITE_OK }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        result.pointee = fs.files[String(cString: name)] == nil ? 0 : 1
        return SQLITE_OK
    }
    vfs.xFullPathname = { _, name, count, output in
        guard let name, let output else { return SQLITE_CANTOPEN }
        let length = strlen(name)
        guard length < Int(count) else { return SQLITE_CANTOPEN }
        memcpy(output, name, length + 1)
        return SQLITE_OK
    }
    vfs.xGetLastError = { _, _, _ in 0 }
    installForwardedClockAndRandomness(&vfs)
    return vfs
}

private func memoryOpen(
    _ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: UnsafePointer<CChar>?,
    _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let file else { return SQLITE_CANTOPEN }
    let handle = FileHandles.cleared(file)
    let fs = MemoryFileSystem.shared
    fs.lock.lock()
    defer { fs.lock.unlock() }

    let isMain = flags & SQLITE_OPEN_MAIN_DB != 0
    if isMain { fs.statistics.databaseOpens += 1 }
    else if flags & SQLITE_OPEN_MAIN_JOURNAL != 0 { fs.statistics.journalOpens += 1 }
    else { fs.statistics.temporaryOpens += 1 }

    let node: MemoryFileNode
    let key = name.map { String(cString: $0) }
    if let key {
        if let existing = fs.files[key] {
            node = existing
        } else {
            guard flags & SQLITE_OPEN_CREATE != 0 else { return SQLITE_CANTOPEN }
            node = MemoryFileNode()
            fs.files[key] = node
        }
    } else {
        node = MemoryFileNode()   // anonymous temporary file
    }
    node.openHandles += 1
    let state = MemoryFile(node: node, name: key, isMainDatabase: isMain, deleteOnClose: flags & SQLITE_OPEN_DELETEONCLOSE != 0)
    handle.pointee.state = Unmanaged.passRetained(state).toOpaque()
    handle.pointee.base.pMethods = memoryIOMethods.pointer
    outFlags?.pointee = flags
    return SQLITE_OK
}

private func memoryFile(_ file: UnsafeMutablePointer<sqlite3_file>?) -> MemoryFile? {
    FileHandles.object(file, as: MemoryFile.self)?.takeUnretainedValue()
}

/// The io_methods table every in-memory file uses; built once, then only read (see IOMethodsTable).
private let memoryIOMethods = IOMethodsTable(methods: {
    var m = sqlite3_io_methods()
    m.iVersion = 1
    m.xClose = { file in
        guard let object = FileHandles.object(file, as: MemoryFile.self) else { return SQLITE_OK }
        let state = object.takeUnretainedValue()
        let fs = MemoryFileSystem.shared
        fs.lock.lock()
        releaseLocks(state, to: SQLITE_LOCK_NONE)
        state.node.openHandles -= 1
        if let name = state.name, fs.files[name] === state.node {
            if state.deleteOnClose {
                fs.files[name] = nil
            } else if state.isMainDatabase && state.node.openHandles == 0 {
                // The last connection closed: the vault and its journal vanish.
                fs.files[name] = nil
                fs.files[name + "-journal"] = nil
            }
        }
        fs.lock.unlock()
        FileHandles.release(file, object)
        return SQLITE_OK
    }
    m.xRead = { file, buffer, amount, offset in
        guard let state = memoryFile(file), let buffer else { return SQLITE_IOERR_READ_CODE }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        let bytes = state.node.bytes
        let start = Int(offset), count = Int(amount)
        let available = max(0, min(count, bytes.count - start))
        if available > 0 {
            bytes.withUnsafeBytes { source in
                guard let base = source.baseAddress else { return }
                buffer.copyMemory(from: base + start, byteCount: available)
            }
        }
        if available < count {
            (buffer + available).initializeMemory(as: UInt8.self, repeating: 0, count: count - available)
            return SQLITE_IOERR_SHORT_READ_CODE
        }
        return SQLITE_OK
    }
    m.xWrite = { file, buffer, amount, offset in
        guard let state = memoryFile(file), let buffer else { return SQLITE_IOERR_WRITE_CODE }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        let start = Int(offset), count = Int(amount)
        if state.node.bytes.count < start + count {
            state.node.bytes.append(contentsOf: repeatElement(0, count: start + count - state.node.bytes.count))
        }
        state.node.bytes.withUnsafeMutableBytes { target in
            guard let base = target.baseAddress else { return }
            (base + start).copyMemory(from: buffer, byteCount: count)
        }
        return SQLITE_OK
    }
    m.xTruncate = { file, size in
        guard let state = memoryFile(file) else { return SQLITE_IOERR_TRUNCATE_CODE }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        if Int(size) < state.node.bytes.count { state.node.bytes.removeSubrange(Int(size)...) }
        return SQLITE_OK
    }
    m.xSync = { _, _ in SQLITE_OK }
    m.xFileSize = { file, size in
        guard let state = memoryFile(file), let size else { return SQLITE_IOERR_FSTAT_CODE }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        size.pointee = sqlite3_int64(state.node.bytes.count)
        return SQLITE_OK
    }
    m.xLock = { file, level in
        guard let state = memoryFile(file) else { return SQLITE_IOERR }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        return acquireLock(state, level)
    }
    m.xUnlock = { file, level in
        guard let state = memoryFile(file) else { return SQLITE_IOERR }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        releaseLocks(state, to: level)
        return SQLITE_OK
    }
    m.xCheckReservedLock = { file, result in
        guard let state = memoryFile(file), let result else { return SQLITE_IOERR }
        let fs = MemoryFileSystem.shared
        fs.lock.lock(); defer { fs.lock.unlock() }
        let node = state.node
        result.pointee = (node.reservedHolder != nil || node.pendingHolder != nil || node.exclusiveHolder != nil) ? 1 : 0
        return SQLITE_OK
    }
    m.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
    m.xSectorSize = { _ in 4096 }
    m.xDeviceCharacteristics = { _ in SQLITE_IOCAP_POWERSAFE_OVERWRITE | SQLITE_IOCAP_SAFE_APPEND }
    return m
}())

/// Moves `state` up to `level`, or returns SQLITE_BUSY (called under the file-system lock).
private func acquireLock(_ state: MemoryFile, _ level: Int32) -> Int32 {
    let node = state.node
    let me = ObjectIdentifier(state)
    if state.lockLevel >= level { return SQLITE_OK }
    switch level {
    case SQLITE_LOCK_SHARED:
        if (node.pendingHolder != nil && node.pendingHolder != me) || (node.exclusiveHolder != nil && node.exclusiveHolder != me) {
            return SQLITE_BUSY
        }
        node.sharedHolders += 1
        state.lockLevel = SQLITE_LOCK_SHARED
    case SQLITE_LOCK_RESERVED:
        if let holder = node.reservedHolder, holder != me { return SQLITE_BUSY }
        node.reservedHolder = me
        state.lockLevel = SQLITE_LOCK_RESERVED
    default:   // PENDING or EXCLUSIVE: block new readers, then wait for current ones to leave.
        if let holder = node.pendingHolder, holder != me { return SQLITE_BUSY }
        node.pendingHolder = me
        if node.sharedHolders > 1 {
            state.lockLevel = SQLITE_LOCK_PENDING
            return SQLITE_BUSY
        }
        node.exclusiveHolder = me
        state.lockLevel = SQLITE_LOCK_EXCLUSIVE
    }
    return SQLITE_OK
}

/// Moves `state` down to `level` (SHARED or NONE), releasing what it held above.
private func releaseLocks(_ state: MemoryFile, to level: Int32) {
    let node = state.node
    let me = ObjectIdentifier(state)
    guard state.lockLevel > level else { return }
    if level < SQLITE_LOCK_RESERVED {
        if node.reservedHolder == me { node.reservedHolder = nil }
        if node.pendingHolder == me { node.pendingHolder = nil }
        if node.exclusiveHolder == me { node.exclusiveHolder = nil }
    }
    if level == SQLITE_LOCK_NONE && state.lockLevel >= SQLITE_LOCK_SHARED {
        node.sharedHolders -= 1
    }
    state.lockLevel = level
}
