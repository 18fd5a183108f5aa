import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating vault files so that no path ever holds a half-made vault.
///
/// A new vault is built under a hidden temporary name in the same directory
/// (header, page 1 with 40 reserved bytes, WAL mode), fsynced, then published
/// with `link()`, which fails rather than replace an existing file: two
/// processes creating the same vault at once end up sharing one of them, and a
/// crash leaves at most a hidden temporary file, never a broken vault.
enum VaultCreation {
    /// Creates an empty vault at `path`. Returns quietly if another process
    /// created it first.
    static func create(at path: String, masterKey: MasterKey?) throws(VaultError) {
        guard let masterKey else { throw VaultError.missingKey(path: path) }
        do {
            _ = try createAtomically(at: path) { temporaryPath throws in
                let db = try Database.open(
                    path: temporaryPath, vfs: VaultVFS.name, readOnly: false, create: true,
                    context: VaultRegistry.OpenContext(masterKey: masterKey, mayCreate: true))
                // Pitfall 5: the reserve must be set before page 1 is first written.
                var reserve = Int32(VaultFileHeader.reservedBytesPerPage)
                _ = db.fileControl(SQLITE_FCNTL_RESERVE_BYTES, &reserve)
                try db.execute("PRAGMA page_size = \(VaultFileHeader.pageSize)")
                try db.execute("PRAGMA synchronous = FULL")
                // Switching to WAL writes page 1 (through a sealed rollback journal).
                guard try db.pragmaValue("journal_mode = WAL").string?.lowercased() == "wal" else {
                    throw VaultError.io(path: path, detail: "SQLite refused WAL mode for the new vault")
                }
                guard let pages = try db.pragmaValue("page_count").int64, pages >= 1 else {
                    throw VaultError.io(path: path, detail: "the new vault has no first page")
                }
            }
        } catch let error as VaultError {
            throw creationFailure(error, path: path)
        } catch {
            throw VaultError.io(path: path, detail: "\(error)")
        }
    }

    /// The error of a failed creation, about the path the caller gave (never the
    /// hidden temporary file it was built under), saying "disk full" when it was.
    private static func creationFailure(_ error: VaultError, path: String) -> VaultError {
        func isDiskFull(_ text: String) -> Bool { text.contains("SQLite code 13") || text.contains("database or disk is full") || text.contains("No space left") }
        switch error {
        case .io(_, let detail):
            if isDiskFull(detail) { return .io(path: path, detail: "cannot create the vault: the disk is full") }
            return .io(path: path, detail: "cannot create the vault: " + detail.replacingOccurrences(of: " (SQLite code", with: " (code"))
        case .sqlite(let failure):
            if failure.code == .full || isDiskFull(failure.message) { return .io(path: path, detail: "cannot create the vault: the disk is full") }
            return .io(path: path, detail: "cannot create the vault: \(failure.message) (SQLite code \(failure.extendedCode))")
        default:
            return error
        }
    }

    /// Builds a file at a temporary name with `build`, fsyncs it and links it
    /// to `path`. Returns `false` if `path` appeared meanwhile (the temporary
    /// file is then discarded).
    @discardableResult
    static func createAtomically(at path: String, build: (String) throws -> Void) throws -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VaultError.io(path: path, detail: "the directory \(directory) does not exist")
        }
        let name = (path as NSString).lastPathComponent
        removeAbandonedBuilds(of: name, in: directory)
        let suffix = Sodium.randomBytes(count: 8).map { String(format: "%02x", $0) }.joined()
        let temporaryPath = directory + "/" + temporaryPrefix(of: name) + suffix
        // Held from before the file exists until after it is gone: another import sees the
        // build as live (see removeAbandonedBuilds) for as long as it can be.
        let building = try lockBuild(at: temporaryPath)
        defer {
            for extra in temporaryExtras { unlink(temporaryPath + extra) }
            withExtendedLifetime(building) {}
        }
        try build(temporaryPath)
        try syncFile(temporaryPath)
        if link(temporaryPath, path) != 0 {
            let error = errno
            if error == EEXIST { return false }
            // File systems without hard links: fall back to a rename that checks first.
            guard !FileManager.default.fileExists(atPath: path), rename(temporaryPath, path) == 0 else {
                throw VaultError.io(path: path, detail: "cannot publish the new vault (\(String(cString: strerror(error))))")
            }
        }
        syncDirectory(directory)
        return true
    }

    /// The hidden name a vault called `name` is built under, before its random suffix.
    static func temporaryPrefix(of name: String) -> String { "." + name + ".vaultkit-new-" }

    /// The files of a build: the database, SQLite's companions, the use lock (last).
    private static let temporaryExtras = ["", "-wal", "-shm", "-journal", ".lock"]

    /// Deletes the hidden files of earlier builds of `name` whose process died before
    /// cleaning up (a killed import). A live build holds its use lock, so its files are
    /// left alone; an abandoned one's lock is free, and taking it exclusively first means
    /// no other process can start using those files while they are deleted.
    static func removeAbandonedBuilds(of name: String, in directory: String) {
        let prefix = temporaryPrefix(of: name)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let builds = Set(entries.filter { $0.hasPrefix(prefix) }.compactMap { entry -> String? in
            let suffix = entry.dropFirst(prefix.count)
            guard suffix.count >= 16, suffix.prefix(16).allSatisfy(\.isHexDigit) else { return nil }
            return directory + "/" + prefix + suffix.prefix(16)
        })
        for build in builds {
            // Held exclusively and still the build's own lock file: nobody is building there.
            guard let lock = try? VaultUseLock.acquire(vaultPath: build, mode: .exclusive),
                  lock.isLinked(forVault: build) else { continue }
            for extra in temporaryExtras { unlink(build + extra) }
            withExtendedLifetime(lock) {}
        }
    }

    /// The shared lock of a build at `temporaryPath`, on the lock file that is there.
    ///
    /// Between this process creating the lock file and locking it, another process's
    /// ``removeAbandonedBuilds(of:in:)`` may find the file unlocked, lock it exclusively
    /// (the shared lock is then refused as `inUse`) and delete it (the lock taken is then
    /// on a file no longer at the path). Either way the other process lets go within the
    /// few system calls its deletion takes: wait a moment and lock a new file.
    private static func lockBuild(at temporaryPath: String) throws -> VaultUseLock? {
        for attempt in 0..<64 {
            do {
                guard let lock = try VaultUseLock.acquire(vaultPath: temporaryPath, mode: .shared) else { return nil }
                if lock.isLinked(forVault: temporaryPath) { return lock }
            } catch VaultError.inUse {
                // Held exclusively by a cleanup that is deleting it.
            }
            usleep(useconds_t(min(attempt + 1, 20) * 500))
        }
        throw VaultError.io(path: temporaryPath, detail: "cannot hold the lock file of the new vault (another process keeps removing it)")
    }

    /// fsync of a file no SQLite connection holds open.
    static func syncFile(_ path: String) throws(VaultError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw VaultError.io(path: path, detail: "cannot open for fsync (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw VaultError.io(path: path, detail: "fsync failed (\(String(cString: strerror(errno))))")
        }
    }

    /// fsync of a directory, so that a link or rename in it is durable.
    static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Whether a read-only open must use SQLite's `immutable` mode: the WAL is
    /// fully checkpointed (no `-wal` file) and the directory is not writable,
    /// so SQLite could not create the `-shm` it otherwise needs
    /// (sqlite.org/wal.html#readonly).
    static func needsImmutableOpen(path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return !FileManager.default.fileExists(atPath: path + "-wal") && access(directory, W_OK) != 0
    }
}
