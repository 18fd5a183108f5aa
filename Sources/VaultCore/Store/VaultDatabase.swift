import CSQLite
import Foundation

/// An encrypted vault (or an in-memory one): one writer connection and a
/// small pool of reader connections, in WAL mode.
///
/// ```swift
/// let key = try MasterKey.generate()
/// let vault = try VaultDatabase(configuration: .init(fileURL: url, masterKey: key))
/// try vault.write { db in
///     try db.execute("CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, body TEXT)")
///     try db.execute("INSERT INTO note(body) VALUES (?)", arguments: ["hello"])
/// }
/// let notes = try vault.read { db in try db.fetchAll("SELECT body FROM note") }
/// ```
///
/// ## Concurrency
/// `VaultDatabase` is `Sendable`. Writes are serialised on the one writer
/// connection; reads run concurrently on up to
/// ``Configuration/maximumReaderCount`` readers, each in its own snapshot
/// (sqlite.org/wal.html: "readers do not block writers and a writer does not
/// block readers"). Each closure runs on the calling thread with a connection
/// nobody else uses meanwhile.
///
/// ## Topics
/// ### Opening
/// - ``init(configuration:)``
/// - ``Configuration``
/// ### Reading and writing
/// - ``read(_:)``
/// - ``write(_:)``
/// - ``writeWithoutTransaction(_:)``
/// - ``makeSnapshot()``
/// ### Maintenance
/// - ``checkpoint()``
/// - ``verify()``
/// - ``writeCopy(toFile:masterKey:)``
///
/// `@unchecked Sendable` is safe because every mutable field is guarded: the
/// key and the use lock by `Locked`, the writer by `writerLock`, the reader
/// pool by `readersCondition`; the rest is immutable after `init`.
public final class VaultDatabase: @unchecked Sendable {
    /// The configuration the vault was opened with; after
    /// ``rotateMasterKey(to:)``, its ``Configuration/masterKey`` is the new key.
    public var configuration: Configuration {
        var current = openedConfiguration
        if current.masterKey != nil { current.masterKey = masterKey.withLock { $0 } }
        return current
    }
    /// The file path, or the in-memory name.
    public let path: String

    let openedConfiguration: Configuration
    private let vfsName: String
    private let immutable: Bool
    private let masterKey = Locked<MasterKey?>(nil)
    private let useLock = Locked<VaultUseLock?>(nil)
    // Recursive: a layer above may re-enter the writer on the same thread.
    private let writerLock = NSRecursiveLock()
    private var writer: Database?
    private var checkpointer: BackgroundCheckpointer?
    private let readersCondition = NSCondition()
    private var idleReaders: [Database] = []
    private var readerCount = 0
    private var isClosed = false

    /// Opens the vault, creating it first if the file does not exist (unless read-only).
    ///
    /// Everything that can be wrong with the file shows here, before any data
    /// is returned: ``VaultError/wrongKey(path:)``, ``VaultError/notAVault(path:reason:)``,
    /// ``VaultError/integrity(_:)`` (tampered header, page 1 or WAL), ``VaultError/fileNotFound(path:)``.
    public init(configuration: Configuration) throws(VaultError) {
        try configuration.validate()
        try VaultVFS.register()
        try MemoryVFS.register()
        self.openedConfiguration = configuration
        switch configuration.storage {
        case .inMemory(let identifier):
            path = MemoryVFS.path(forIdentifier: identifier)
            vfsName = MemoryVFS.name
            immutable = false
        case .file(let url):
            path = VaultVFS.fullPathname(url.standardizedFileURL.path)
            vfsName = VaultVFS.name
            try VaultPathCheck.requireRegularFileOrAbsent(path)
            let key = try configuration.resolveMasterKey()
            masterKey.withLock { $0 = key }
            let exists = FileManager.default.fileExists(atPath: path)
            if !exists {
                guard !configuration.readOnly else { throw VaultError.fileNotFound(path: path) }
            }
            let acquired = try VaultUseLock.acquire(vaultPath: path, mode: .shared)
            useLock.withLock { $0 = acquired }
            if !exists {
                try VaultCreation.create(at: path, masterKey: key)
            }
            immutable = configuration.readOnly && VaultCreation.needsImmutableOpen(path: path)
        }
        if !configuration.readOnly {
            let writer = try openConnection(forWriting: true)
            self.writer = writer
            if case .file = configuration.storage, configuration.checkpointsInBackground, configuration.walAutocheckpointPages > 0 {
                let checkpointer = BackgroundCheckpointer(threshold: configuration.walAutocheckpointPages,
                                                          backgroundForLargeCommitsOnly: configuration.synchronous == .full,
                                                          maximumWaitMilliseconds: writer.busyTimeoutMilliseconds) { [weak self] () throws(VaultError) -> Database in
                    guard let self else { throw VaultError.misuse("the vault is closed") }
                    return try self.openConnection(forWriting: true)
                }
                // After configure(), whose wal_autocheckpoint pragma would replace the hook.
                checkpointer.install(on: writer)
                self.checkpointer = checkpointer
            }
        } else {
            // Read-only: open one reader now so that errors surface at open.
            let reader = try openConnection(forWriting: false)
            idleReaders.append(reader)
            readerCount = 1
        }
    }

    deinit {
        close()
    }

    /// Closes every connection and releases the vault's use lock. Later calls
    /// throw ``VaultError/misuse(_:)``.
    public func close() {
        writerLock.lock()
        writer = nil
        writerLock.unlock()
        checkpointer?.close()
        readersCondition.lock()
        isClosed = true
        idleReaders.removeAll()
        readersCondition.broadcast()
        readersCondition.unlock()
        useLock.withLock { $0 = nil }
    }

    // MARK: - Connections

    private var openContext: VaultRegistry.OpenContext? {
        masterKey.withLock { $0 }.map { VaultRegistry.OpenContext(masterKey: $0, mayCreate: false) }
    }

    private func openConnection(forWriting: Bool) throws(VaultError) -> Database {
        let isMemory: Bool
        if case .inMemory = openedConfiguration.storage { isMemory = true } else { isMemory = false }
        let db = try Database.open(
            path: path, vfs: vfsName, readOnly: openedConfiguration.readOnly,
            create: isMemory, immutable: immutable, context: isMemory ? nil : openContext)
        try configure(db, isMemory: isMemory, forWriting: forWriting)
        return db
    }

    private func configure(_ db: Database, isMemory: Bool, forWriting: Bool) throws(VaultError) {
        let milliseconds = openedConfiguration.busyTimeout.components.seconds * 1000
            + openedConfiguration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        db.busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        sqlite3_busy_timeout(db.handle, db.busyTimeoutMilliseconds)
        _ = vaultkit_db_config_flag(db.handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
        try db.execute("PRAGMA cache_size = -\(max(1, openedConfiguration.pageCacheSize / 1024))")
        try db.execute("PRAGMA cache_spill = \(max(1, openedConfiguration.spillThreshold / VaultFileHeader.pageSize))")
        try db.execute("PRAGMA temp_store = \(openedConfiguration.temporaryStorage == .memory ? "MEMORY" : "FILE")")
        if !forWriting {
            // Readers never write: a write belongs on the one writer connection.
            try db.execute("PRAGMA query_only = 1")
        }
        if !openedConfiguration.readOnly {
            try db.execute("PRAGMA synchronous = \(openedConfiguration.synchronous.rawValue)")
            try db.execute("PRAGMA wal_autocheckpoint = \(openedConfiguration.walAutocheckpointPages)")
        }
        // Reading the schema reads page 1 and recovers the WAL now, so a wrong
        // key or a tampered vault fails here rather than at the first query.
        _ = try db.fetchOne("SELECT count(*) FROM sqlite_schema")
        if let prepareDatabase = openedConfiguration.prepareDatabase {
            do {
                try prepareDatabase(db)
            } catch let error as VaultError {
                throw error
            } catch {
                throw VaultError.invalidConfiguration("prepareDatabase failed: \(error)")
            }
        }
        guard !isMemory else { return }
        var reserve: Int32 = -1
        _ = db.fileControl(SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        guard reserve == Int32(VaultFileHeader.reservedBytesPerPage) else {
            throw VaultError.unsupportedFormat(path: path, detail: "pages reserve \(reserve) bytes, v1 needs 40")
        }
        if forWriting, try db.pragmaValue("journal_mode").string?.lowercased() != "wal" {
            // A copy made by VACUUM INTO starts in rollback mode: move it to WAL once.
            try db.execute("PRAGMA journal_mode = WAL")
        }
    }

    /// A reader from the pool, opening one if the pool is below its limit;
    /// when every reader is busy, waits for one (or, with `waiting: false`, returns nil).
    func checkOutReader(waiting: Bool) throws(VaultError) -> Database? {
        readersCondition.lock()
        while true {
            if isClosed {
                readersCondition.unlock()
                throw VaultError.misuse("the vault at \(path) is closed")
            }
            if let reader = idleReaders.popLast() {
                readersCondition.unlock()
                return reader
            }
            if readerCount < openedConfiguration.maximumReaderCount {
                readerCount += 1
                readersCondition.unlock()
                do {
                    return try openConnection(forWriting: false)
                } catch {
                    readersCondition.lock()
                    readerCount -= 1
                    readersCondition.signal()
                    readersCondition.unlock()
                    throw error
                }
            }
            guard waiting else {
                readersCondition.unlock()
                return nil
            }
            readersCondition.wait()
        }
    }

    private func checkOutReader() throws(VaultError) -> Database {
        guard let reader = try checkOutReader(waiting: true) else { throw VaultError.misuse("no reader of \(path) is free") }
        return reader
    }

    func checkIn(_ reader: Database) {
        readersCondition.lock()
        if !isClosed { idleReaders.append(reader) } else { readerCount -= 1 }
        readersCondition.signal()
        readersCondition.unlock()
    }

    // MARK: - Reading and writing

    /// Runs `body` with a reader connection inside one read transaction: every
    /// query in `body` sees the same committed snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try reader.transaction(.deferred, body)
    }

    /// Runs `body` in a write transaction on the writer connection: committed
    /// when `body` returns, rolled back when it throws.
    /// - Throws: ``VaultError/readOnly(path:detail:)`` on a read-only vault.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        let result = try writeWithoutTransaction { db in try db.transaction(.immediate, body) }
        // Wake processes that observe this vault (see CommitSignal).
        if case .file = openedConfiguration.storage { CommitSignal.ring(vaultPath: path) }
        return result
    }

    /// Runs `body` on the writer connection without opening a transaction (for
    /// statements that cannot run inside one, such as `VACUUM`).
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        guard let writer else {
            if openedConfiguration.readOnly {
                throw VaultError.readOnly(path: path, detail: "it was opened with readOnly = true")
            }
            throw VaultError.misuse("the vault at \(path) is closed")
        }
        return try writer.guarded { () throws -> T in try body(writer) }
    }

    /// Lends the writer connection to the calling thread until
    /// ``returnWriter(_:)``, holding the writer lock meanwhile: for a layer that
    /// runs many statements inside one transaction (VaultKit's write
    /// transactions) without taking the lock for each. Other threads wait in
    /// ``withConnection(_:)`` and ``write(_:)`` meanwhile. Call both on the same thread.
    /// - Throws: ``VaultError/readOnly(path:detail:)`` on a read-only vault.
    package func borrowWriter() throws(VaultError) -> Database {
        writerLock.lock()
        guard let writer else {
            writerLock.unlock()
            if openedConfiguration.readOnly {
                throw VaultError.readOnly(path: path, detail: "it was opened with readOnly = true")
            }
            throw VaultError.misuse("the vault at \(path) is closed")
        }
        do {
            try writer.enter()
        } catch {
            writerLock.unlock()
            throw error
        }
        return writer
    }

    /// Ends a ``borrowWriter()`` (on the thread that borrowed it).
    package func returnWriter(_ writer: Database) {
        writer.leave()
        writerLock.unlock()
    }

    /// Runs `body` on the writer connection (a reader on read-only vaults)
    /// without opening a transaction: for layers that manage transactions
    /// themselves, like VaultKit's `Vault`.
    package func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        if openedConfiguration.readOnly {
            let reader = try checkOutReader()
            defer { checkIn(reader) }
            return try reader.guarded { () throws -> T in try body(reader) }
        }
        return try writeWithoutTransaction(body)
    }

    // MARK: - Maintenance

    /// Rotates the master key in O(1): the data key is rewrapped under `newKey`
    /// into the inactive key slot, fsynced, then the old slot is erased. Pages
    /// are not touched. From then on only `newKey` opens the vault; this
    /// instance switches to it. Store `newKey` (for example in your keystore)
    /// before calling this.
    ///
    /// Other processes that have the vault open keep working with their open
    /// connections but cannot open new ones with the old key: rotate while the
    /// vault is used by this process only (``VaultMaintenance/rotateMasterKey(ofVaultAt:from:to:)``
    /// checks that for offline tools).
    public func rotateMasterKey(to newKey: MasterKey) throws {
        guard case .file = openedConfiguration.storage else {
            throw VaultError.invalidConfiguration("an in-memory vault has no master key")
        }
        guard let currentKey = openContext?.masterKey else { throw VaultError.missingKey(path: path) }
        try write { db in try VaultMaintenance.installMasterKey(on: db, from: currentKey, to: newKey) }
        masterKey.withLock { $0 = newKey }
    }

    /// How many checkpoints ran on the background connection (see
    /// ``Configuration/checkpointsInBackground``).
    public var backgroundCheckpointCount: Int { checkpointer?.backgroundCheckpointCount ?? 0 }

    /// Copies the WAL into the database file and truncates the WAL.
    public func checkpoint() throws {
        try writeWithoutTransaction { db in
            _ = try db.fetchOne("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Authenticates every page that SQLite reaches and runs SQLite's
    /// integrity check. Throws the first failure.
    public func verify() throws {
        try read { db in
            let rows = try db.fetchAll("PRAGMA integrity_check")
            let messages = rows.compactMap { $0[0].string }.filter { $0 != "ok" }
            if !messages.isEmpty {
                throw VaultError.integrity(IntegrityFailure(path: path, location: .databaseStructure, reason: messages.prefix(5).joined(separator: "; ")))
            }
        }
    }

    /// Realm's spelling: a copy under `encryptionKey` (64 bytes), or under this
    /// vault's key when `nil`. See ``writeCopy(toFile:masterKey:)``.
    public func writeCopy(toFile url: URL, encryptionKey: Data?) throws {
        try writeCopy(toFile: url, masterKey: try encryptionKey.map { data throws(VaultError) in try MasterKey(bytes: data) })
    }

    /// Writes a compacted, encrypted copy of the vault to a new file.
    ///
    /// The copy has its own random data key and salt, wrapped under `masterKey`
    /// (or this vault's key). It is built under a temporary name and linked into
    /// place only when complete, so `url` never holds a partial vault.
    /// - Throws: ``VaultError/io(path:detail:)`` if `url` exists.
    public func writeCopy(toFile url: URL, masterKey: MasterKey? = nil) throws {
        guard case .file = openedConfiguration.storage else {
            throw VaultError.invalidConfiguration("writeCopy is for on-disk vaults")
        }
        guard let key = masterKey ?? openContext?.masterKey else { throw VaultError.missingKey(path: url.path) }
        let target = VaultVFS.fullPathname(url.standardizedFileURL.path)
        guard !FileManager.default.fileExists(atPath: target) else {
            throw VaultError.io(path: target, detail: "the file already exists; writeCopy never overwrites")
        }
        try VaultCreation.createAtomically(at: target) { temporaryPath throws in
            let reader = try checkOutReader()
            defer { checkIn(reader) }
            try reader.guarded { () throws in
                let context = VaultRegistry.OpenContext(masterKey: key, mayCreate: true)
                // VACUUM INTO only reads this vault; query_only would refuse it all the same.
                try reader.execute("PRAGMA query_only = 0")
                defer { try? reader.execute("PRAGMA query_only = 1") }
                try VaultRegistry.$openContext.withValue(context) { () throws in
                    try reader.execute("VACUUM INTO ?", arguments: [.text(temporaryPath)])
                }
            }
            // The copy starts in rollback-journal mode: switch it to WAL before it is visible.
            let copy = try Database.open(path: temporaryPath, vfs: VaultVFS.name, readOnly: false,
                                         context: VaultRegistry.OpenContext(masterKey: key, mayCreate: false))
            try copy.execute("PRAGMA synchronous = FULL")
            try copy.execute("PRAGMA journal_mode = WAL")
        }
    }
}
