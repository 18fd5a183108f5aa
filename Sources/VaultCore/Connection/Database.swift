import CSQLite
import Foundation

/// One SQLite connection to a vault, through the page-sealing VFS (or, for
/// in-memory vaults, the in-memory VFS).
///
/// You rarely create one yourself: ``VaultDatabase`` owns a writer and a few
/// readers and lends them out.
///
/// ```swift
/// try vault.write { db in
///     try db.execute("INSERT INTO note(body) VALUES (?)", arguments: [.text(body)])
/// }
/// let count = try vault.read { db in try db.fetchOne("SELECT count(*) FROM note")?[0].int64 }
/// ```
///
/// ## Threading
/// A connection is used by one thread at a time (SQLite's multi-thread mode,
/// sqlite.org/threadsafe.html: "a single database connection … [must not be]
/// used simultaneously in two or more threads"). `Database` is not `Sendable`,
/// so Swift 6 refuses to share it across concurrency domains at compile time;
/// at run time, entering a connection from a second thread while another is
/// inside it throws ``VaultError/misuse(_:)``.
public final class Database {
    /// How a transaction takes its locks (sqlite.org/lang_transaction.html).
    public enum TransactionKind: String, Sendable {
        /// Locks on first read or write.
        case deferred = "DEFERRED"
        /// Takes the write lock at once: no `SQLITE_BUSY` halfway through.
        case immediate = "IMMEDIATE"
        /// As immediate; in WAL mode the same.
        case exclusive = "EXCLUSIVE"
    }

    let handle: OpaquePointer
    /// The busy timeout the connection was configured with (restored after a non-waiting attempt).
    package var busyTimeoutMilliseconds: Int32 = 0
    /// The file (or in-memory name) of this connection.
    public let path: String
    /// Whether the connection was opened read-only.
    public let isReadOnly: Bool
    private var statementCache: [String: Statement] = [:]
    /// Kept alive while installed as SQLite's update hook (see Database+RowChanges).
    var rowChangeObserver: RowChangeObserver?
    /// The object a C hook of this connection points to (the WAL hook's
    /// checkpointer), kept alive as long as the connection can call it.
    var hookContext: AnyObject?
    private var savepointCounter = 0
    /// The thread inside the connection (0 for none), claimed with a
    /// compare-and-swap: the check runs on every statement, and a lock there
    /// cost more than the statement's own bookkeeping.
    private let activeThread = AtomicWord()
    /// How deep the active thread is inside: touched only by that thread.
    @exclusivity(unchecked) private var activeDepth = 0

    private init(handle: OpaquePointer, path: String, isReadOnly: Bool) {
        self.handle = handle
        self.path = path
        self.isReadOnly = isReadOnly
    }

    deinit {
        if rowChangeObserver != nil { sqlite3_update_hook(handle, nil, nil) }
        recentStatements.removeAll()
        statementCache.removeAll()
        keyedStatements.removeAll()
        lastKeyedStatement = nil
        sqlite3_close_v2(handle)
    }

    // MARK: - Opening

    /// Opens a connection. `context` is what the vault VFS needs to unlock or create the file.
    static func open(
        path: String, vfs: String, readOnly: Bool, create: Bool = false, immutable: Bool = false,
        context: VaultRegistry.OpenContext?
    ) throws(VaultError) -> Database {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var filename = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            filename = "file:" + percentEncodedPath(path) + "?immutable=1"
        }
        _ = VaultRegistry.takeFailure()
        var raw: OpaquePointer?
        let status = VaultRegistry.$openContext.withValue(context) {
            sqlite3_open_v2(filename, &raw, flags, vfs)
        }
        guard status == SQLITE_OK, let handle = raw else {
            let failure = VaultRegistry.takeFailure()
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(raw)
            if let failure { throw failure }
            throw VaultError.sqlite(SQLiteError(extendedCode: status, message: message))
        }
        return Database(handle: handle, path: path, isReadOnly: readOnly)
    }

    // MARK: - Errors

    /// The typed error for a SQLite result code, preferring the detailed
    /// failure the VFS recorded (wrong key, integrity) over the bare code.
    func error(_ status: Int32, sql: String?) -> VaultError {
        let primary = status & 0xFF
        if [SQLITE_IOERR, SQLITE_NOTADB, SQLITE_AUTH, SQLITE_CANTOPEN, SQLITE_CORRUPT].contains(primary),
           let failure = VaultRegistry.takeFailure() {
            return failure
        }
        let message = String(cString: sqlite3_errmsg(handle))
        switch primary {
        case SQLITE_READONLY:
            return .readOnly(path: path, detail: message)
        case SQLITE_CORRUPT:
            return .integrity(IntegrityFailure(path: path, location: .databaseStructure, reason: message))
        case SQLITE_FULL:
            return .io(path: path, detail: "the disk is full")
        case SQLITE_IOERR:
            // The file system failed a read, write or sync: say so, with the file.
            return .io(path: path, detail: "the file system reported an I/O error (SQLite code \(status))")
        default:
            return .sqlite(SQLiteError(extendedCode: status, message: message, sql: sql))
        }
    }

    // MARK: - Threading

    /// Runs `body` as the only thread inside this connection.
    func guarded<T, E: Error>(_ body: () throws(E) -> T) throws -> T {
        try enter()
        defer { leave() }
        return try body()
    }

    func enter() throws(VaultError) {
        let me = currentThreadIdentifier()
        if activeThread.load() == me {
            activeDepth += 1   // the active thread, re-entering
            return
        }
        guard activeThread.claim(from: 0, to: me) else {
            throw VaultError.misuse("the connection to \(path) is in use by another thread; a connection is used by one thread at a time (VaultDatabase lends each thread its own)")
        }
        activeDepth = 1
    }

    func leave() {
        activeDepth -= 1
        if activeDepth == 0 { activeThread.store(0) }
    }

    /// Throws ``VaultError/misuse(_:)`` if another thread is inside this connection.
    func checkThread() throws(VaultError) {
        let active = activeThread.load()
        if active != 0 && active != currentThreadIdentifier() {
            throw VaultError.misuse("the connection to \(path) is in use by another thread; a connection is used by one thread at a time")
        }
    }

    // MARK: - Statements

    /// A new prepared statement (not cached).
    public func makeStatement(_ sql: String) throws(VaultError) -> Statement {
        try checkThread()
        return try Statement(database: self, sql: sql)
    }

    /// A prepared statement from this connection's cache, prepared on first use.
    public func cachedStatement(_ sql: String) throws(VaultError) -> Statement {
        // The statements used last, newest first, compared before hashing: a
        // query run again (a template's count, a results' page) passes the very
        // same String, and equal storage compares in one step, where hashing
        // reads all the text. Lengths first: texts of other lengths differ.
        let length = sql.utf8.count
        for statement in recentStatements.reversed() where statement.sql.utf8.count == length && statement.sql == sql {
            return statement
        }
        let statement: Statement
        if let cached = statementCache[sql] {
            statement = cached
        } else {
            statement = try makeStatement(sql)
            statementCache[sql] = statement
        }
        if recentStatements.count == Self.recentStatementCount { recentStatements.removeFirst() }
        recentStatements.append(statement)
        return statement
    }

    /// Text-keyed statements most recently looked up, oldest first (see `cachedStatement(_:)`).
    private var recentStatements: [Statement] = []
    private static let recentStatementCount = 4

    /// A cache key for statements that a layer above builds once per use site
    /// (hashing it is cheaper than hashing the SQL text).
    package struct StatementKey: Hashable, Sendable {
        let owner: ObjectIdentifier
        let kind: Int
        /// A key for statement `kind` of `owner` (for example a model class's schema).
        package init(owner: AnyObject, kind: Int) {
            self.owner = ObjectIdentifier(owner)
            self.kind = kind
        }
    }

    private var keyedStatements: [StatementKey: Statement] = [:]
    /// The keyed statement looked up last: a loop that runs one statement per
    /// object (a bulk insert, a batch of updates) asks for the same key each
    /// time, and comparing two words is cheaper than hashing them.
    private var lastKeyedStatement: (key: StatementKey, statement: Statement)?

    /// A prepared statement cached under `key`, prepared from `sql` on first use.
    /// The key's owner must outlive the connection's use of the statement.
    package func cachedStatement(key: StatementKey, sql: () -> String) throws(VaultError) -> Statement {
        if let last = lastKeyedStatement, last.key == key { return last.statement }
        let statement: Statement
        if let cached = keyedStatements[key] {
            statement = cached
        } else {
            statement = try makeStatement(sql())
            keyedStatements[key] = statement
        }
        lastKeyedStatement = (key, statement)
        return statement
    }

    /// Tries `BEGIN IMMEDIATE` without waiting for the write lock: true when the
    /// transaction is open, false when another connection holds the lock
    /// (`SQLITE_BUSY`). For callers that wait without blocking a thread
    /// (VaultKit's asynchronous writes suspend and try again).
    package func tryBeginImmediate() throws(VaultError) -> Bool {
        try checkThread()
        // The busy handler would sleep on this thread until the lock frees: off for this one statement.
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        do {
            try execute("BEGIN IMMEDIATE TRANSACTION")
            return true
        } catch VaultError.sqlite(let failure) where failure.code == .busy {
            return false
        }
    }

    /// Runs SQL. With arguments, `sql` is one statement (prepared once and
    /// cached); without, it may hold several separated by `;`.
    /// - Throws: ``VaultError`` for SQL SQLite refuses, a constraint it enforces,
    ///   a busy lock past the timeout, or a damaged file.
    public func execute(_ sql: String, arguments: [DatabaseValue] = []) throws(VaultError) {
        try checkThread()
        if !arguments.isEmpty {
            try cachedStatement(sql).execute(arguments)
            return
        }
        if let kind = Self.transactionStatements.firstIndex(of: sql) {
            // Every write and every snapshot runs these: prepared once per connection
            // (keyed, so they take no place among the recent text-keyed statements).
            try cachedStatement(key: StatementKey(owner: self, kind: -1 - kind)) { sql }.execute()
            return
        }
        try executeScript(sql)
    }

    /// Transaction statements kept prepared (see `execute(_:arguments:)`).
    private static let transactionStatements = [
        "BEGIN IMMEDIATE TRANSACTION", "BEGIN DEFERRED TRANSACTION", "BEGIN EXCLUSIVE TRANSACTION",
        "COMMIT TRANSACTION", "ROLLBACK TRANSACTION",
    ]

    private func executeScript(_ sql: String) throws(VaultError) {
        var utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<CChar>) throws(VaultError) in
            guard var cursor = UnsafePointer(buffer.baseAddress) else { return }
            while cursor.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let status = sqlite3_prepare_v2(handle, cursor, -1, &statement, &tail)
                guard status == SQLITE_OK else { throw error(status, sql: sql) }
                if let statement {
                    var stepStatus = sqlite3_step(statement)
                    while stepStatus == SQLITE_ROW { stepStatus = sqlite3_step(statement) }
                    sqlite3_finalize(statement)
                    guard stepStatus == SQLITE_DONE else { throw error(stepStatus, sql: sql) }
                }
                guard let tail, tail != cursor else { break }
                cursor = tail
            }
        }
    }

    /// Every row of a query.
    public func fetchAll(_ sql: String, arguments: [DatabaseValue] = []) throws(VaultError) -> [Row] {
        try cachedStatement(sql).fetchAll(arguments)
    }

    /// The first row of a query, if any.
    public func fetchOne(_ sql: String, arguments: [DatabaseValue] = []) throws(VaultError) -> Row? {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return Row((0..<statement.columnCount).map { statement.value(at: $0) })
    }

    /// The rowid of the last inserted row (sqlite3_last_insert_rowid).
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by every INSERT, UPDATE and DELETE since the connection
    /// opened (sqlite3_total_changes64): compare two readings to learn whether
    /// a transaction changed anything.
    public var totalChangesCount: Int { Int(sqlite3_total_changes64(handle)) }
    /// Rows changed by the last statement (sqlite3_changes64).
    public var changesCount: Int { Int(sqlite3_changes64(handle)) }
    /// Whether a transaction is open (sqlite3_get_autocommit).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws.
    ///
    /// Inside another transaction, this becomes a savepoint, so transactions nest:
    /// an inner failure rolls back only the inner work.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: (Database) throws -> T) throws -> T {
        try guarded { () throws -> T in
            if isInTransaction { return try savepoint(body) }
            try execute("BEGIN \(kind.rawValue) TRANSACTION")
            do {
                let result = try body(self)
                try execute("COMMIT TRANSACTION")
                return result
            } catch {
                if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    /// Runs `body` in a savepoint (sqlite.org/lang_savepoint.html): released if
    /// it returns, rolled back if it throws.
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        try guarded { () throws -> T in
            savepointCounter += 1
            let name = "vaultkit_savepoint_\(savepointCounter)"
            defer { savepointCounter -= 1 }
            try execute("SAVEPOINT \(name)")
            do {
                let result = try body(self)
                try execute("RELEASE SAVEPOINT \(name)")
                return result
            } catch {
                try? execute("ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
                throw error
            }
        }
    }

    /// The underlying `sqlite3*`, for code that calls the SQLite C API directly
    /// (benchmarks, extensions). Do not close it, change `journal_mode`,
    /// `page_size` or the reserve, or use it from another thread.
    package var sqliteConnection: OpaquePointer { handle }

    // MARK: - Settings

    /// Runs a PRAGMA that returns one value and gives it back.
    func pragmaValue(_ pragma: String) throws(VaultError) -> DatabaseValue {
        try fetchOne("PRAGMA \(pragma)")?[0] ?? .null
    }

    /// `sqlite3_file_control` on the main database.
    func fileControl(_ op: Int32, _ value: inout Int32) -> Int32 {
        sqlite3_file_control(handle, "main", op, &value)
    }
}

/// Percent-encodes a path for a `file:` URI (sqlite.org/uri.html).
func percentEncodedPath(_ path: String) -> String {
    var result = ""
    for byte in path.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
            result.append(Character(Unicode.Scalar(byte)))
        default:
            result += String(format: "%%%02X", byte)
        }
    }
    return result
}
