import CSQLite

/// An error reported by SQLite, with its primary and extended result codes.
///
/// Match on the primary code with the static constants:
///
/// ```swift
/// catch let VaultError.sqlite(error) where error.code == .constraint { … }
/// ```
///
/// `sql` is the statement text (never its arguments, which are always bound).
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A primary SQLite result code (sqlite.org/rescode.html).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        public static let error = Code(rawValue: SQLITE_ERROR)
        public static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        public static let permission = Code(rawValue: SQLITE_PERM)
        public static let abort = Code(rawValue: SQLITE_ABORT)
        public static let busy = Code(rawValue: SQLITE_BUSY)
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        public static let noMemory = Code(rawValue: SQLITE_NOMEM)
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        public static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        public static let full = Code(rawValue: SQLITE_FULL)
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        public static let schema = Code(rawValue: SQLITE_SCHEMA)
        public static let tooBig = Code(rawValue: SQLITE_TOOBIG)
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        public static let auth = Code(rawValue: SQLITE_AUTH)
        public static let range = Code(rawValue: SQLITE_RANGE)
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        public var description: String {
            String(cString: sqlite3_errstr(rawValue))
        }
    }

    /// The primary result code.
    public var code: Code
    /// The extended result code (sqlite.org/rescode.html#extrc), e.g. `SQLITE_CONSTRAINT_UNIQUE`.
    public var extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), which names tables and columns but no values.
    public var message: String
    /// The statement that failed, if any.
    public var sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = Code(rawValue: extendedCode)
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(extendedCode) (\(code)): \(message)"
        if let sql { text += " — in statement: \(sql)" }
        return text
    }
}
