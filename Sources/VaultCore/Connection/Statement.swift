import CSQLite
import Foundation

/// A prepared statement (`sqlite3_stmt`).
///
/// Values are always bound, never spliced into SQL text:
///
/// ```swift
/// let insert = try db.cachedStatement("INSERT INTO t(id, name) VALUES (?, ?)")
/// for (id, name) in rows {
///     try insert.execute([.integer(id), .text(name)])
/// }
/// ```
///
/// A statement belongs to its ``Database`` and, like it, is used by one thread
/// at a time. See sqlite.org/c3ref/stmt.html.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text (never includes argument values).
    public let sql: String
    unowned let database: Database
    /// The bytes of the text and blob arguments bound now, which SQLite reads in
    /// place (`SQLITE_STATIC`) instead of copying each into an allocation of its
    /// own (a `malloc` and a `free` per value, a noticeable share of an insert:
    /// Benchmarks/README.md, "Statement column reads and arguments"). It
    /// lives as long as the statement, grows when an argument needs more, and is
    /// zeroed when the statement is reset, so no stored value outlives the call
    /// that bound it here (SECURITY.md).
    private var argumentBytes: UnsafeMutableRawPointer
    private var argumentCapacity: Int
    private var argumentBytesUsed = 0

    init(database: Database, sql: String) throws(VaultError) {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw database.error(status, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
        argumentCapacity = 64
        argumentBytes = UnsafeMutableRawPointer.allocate(byteCount: argumentCapacity, alignment: 16)
    }

    deinit {
        sqlite3_finalize(handle)
        clearArgumentBytes()
        argumentBytes.deallocate()
    }

    /// The number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// The name of result column `index`.
    public func columnName(at index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// Resets the statement and binds `arguments` to its parameters, in order.
    /// - Throws: ``VaultError/misuse(_:)`` when the count does not match.
    public func bind(_ arguments: [DatabaseValue]) throws(VaultError) {
        try arguments.withUnsafeBufferPointer { (buffer) throws(VaultError) in try bind(buffer) }
    }

    /// Resets the statement and binds the values of `arguments` to its
    /// parameters, in order (for a caller that holds values in a buffer of its
    /// own, such as a new object's row, and would otherwise build an array).
    /// - Throws: ``VaultError/misuse(_:)`` when the count does not match.
    public func bind(_ arguments: UnsafeBufferPointer<DatabaseValue>) throws(VaultError) {
        // Every parameter is bound below (the count is checked), so no clear_bindings.
        reset()
        guard arguments.count == parameterCount else {
            throw VaultError.misuse("the statement `\(sql)` takes \(parameterCount) arguments, \(arguments.count) were given")
        }
        var byteCount = 0
        for argument in arguments { byteCount += argument.boundByteCount }
        reserveArgumentBytes(byteCount)
        for offset in arguments.indices { try bindValue(arguments[offset], at: Int32(offset + 1)) }
    }

    /// Resets the statement and binds its only parameter (no array to build).
    /// - Throws: ``VaultError/misuse(_:)`` when the statement does not take exactly one.
    public func bind(single argument: DatabaseValue) throws(VaultError) {
        reset()
        guard parameterCount == 1 else {
            throw VaultError.misuse("the statement `\(sql)` takes \(parameterCount) arguments, 1 was given")
        }
        reserveArgumentBytes(argument.boundByteCount)
        try bindValue(argument, at: 1)
    }

    private func bindValue(_ value: DatabaseValue, at index: Int32) throws(VaultError) {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
        case .real(let v): status = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            // With its byte count, not -1: a string may hold NUL characters, which a C string would cut off.
            var text = v
            status = text.withUTF8 { bytes in
                let stored = storeArgumentBytes(UnsafeRawBufferPointer(bytes))
                return sqlite3_bind_text64(handle, index, stored.pointer.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), stored.destructor, UInt8(SQLITE_UTF8))
            }
        case .blob(let v):
            status = v.withUnsafeBytes { bytes in
                let stored = storeArgumentBytes(bytes)
                return sqlite3_bind_blob64(handle, index, stored.pointer, UInt64(bytes.count), stored.destructor)
            }
        }
        guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
    }

    /// Makes room for `byteCount` argument bytes (before any is bound: a larger
    /// buffer replaces the old one, which no binding may still point into).
    private func reserveArgumentBytes(_ byteCount: Int) {
        argumentBytesUsed = 0
        guard byteCount > argumentCapacity else { return }
        argumentBytes.deallocate()
        argumentCapacity = max(byteCount, argumentCapacity * 2)
        argumentBytes = UnsafeMutableRawPointer.allocate(byteCount: argumentCapacity, alignment: 16)
    }

    /// Copies one argument's bytes into the statement's buffer and says how to bind
    /// them: in place, or copied by SQLite when they do not fit (a string whose
    /// UTF-8 count changed between counting and binding, as a bridged one may).
    /// Never a null pointer, even for no bytes: SQLite binds NULL for one.
    private func storeArgumentBytes(_ bytes: UnsafeRawBufferPointer) -> (pointer: UnsafeMutableRawPointer, destructor: sqlite3_destructor_type?) {
        let start = argumentBytes + argumentBytesUsed
        guard bytes.count <= argumentCapacity - argumentBytesUsed else {
            return (UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(start)), vaultkit_sqlite_transient())
        }
        if let base = bytes.baseAddress, bytes.count > 0 { start.copyMemory(from: base, byteCount: bytes.count) }
        argumentBytesUsed += bytes.count
        return (start, nil)
    }

    /// Zeroes the argument bytes of the last binding (the statement is reset, and
    /// its next run binds every parameter again).
    private func clearArgumentBytes() {
        guard argumentBytesUsed > 0 else { return }
        argumentBytes.initializeMemory(as: UInt8.self, repeating: 0, count: argumentBytesUsed)
        argumentBytesUsed = 0
    }

    /// Advances to the next row. Returns `false` when the statement is done.
    public func step() throws(VaultError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw database.error(status, sql: sql)
        }
    }

    /// Resets the statement so that it can run again. Text and blob arguments
    /// are cleared (their bytes zeroed): bind again before the next run.
    public func reset() {
        sqlite3_reset(handle)
        clearArgumentBytes()
    }

    /// Binds `arguments` and runs the statement to completion.
    public func execute(_ arguments: [DatabaseValue] = []) throws(VaultError) {
        try arguments.withUnsafeBufferPointer { (buffer) throws(VaultError) in try execute(buffer) }
    }

    /// Binds the values of `arguments` and runs the statement to completion.
    public func execute(_ arguments: UnsafeBufferPointer<DatabaseValue>) throws(VaultError) {
        try database.checkThread()
        if arguments.contains(where: { $0.boundByteCount > Self.inPlaceByteCount }) {
            try executeBindingLargeArgumentsInPlace(arguments)
            return
        }
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    /// Binds `arguments` and returns every row.
    public func fetchAll(_ arguments: [DatabaseValue] = []) throws(VaultError) -> [Row] {
        try database.checkThread()
        try bind(arguments)
        defer { reset() }
        var rows: [Row] = []
        let columns = columnCount
        while try step() {
            rows.append(Row((0..<columns).map { value(at: $0) }))
        }
        return rows
    }

    /// Binds `arguments` and returns the first column of the first row (nil when
    /// there is no row): a count or an aggregate, with no row arrays.
    public func fetchFirstValue(_ arguments: [DatabaseValue] = []) throws(VaultError) -> DatabaseValue? {
        try database.checkThread()
        try bind(arguments)
        defer { reset() }
        return try step() ? value(at: 0) : nil
    }

    /// Binds `arguments` and calls `body` for each row, with the statement positioned on it.
    public func forEachRow(_ arguments: [DatabaseValue] = [], _ body: (Statement) throws(VaultError) -> Void) throws(VaultError) {
        try database.checkThread()
        try bind(arguments)
        defer { reset() }
        while try step() { try body(self) }
    }

    // MARK: Reading the current row

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
    /// Column `index` as an integer (SQLite's conversion rules apply).
    public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    /// Column `index` as a double.
    public func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }
    /// Column `index` as text.
    public func string(at index: Int) -> String {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
    /// Column `index` as bytes.
    public func data(at index: Int) -> Data {
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard count > 0, let bytes = sqlite3_column_blob(handle, Int32(index)) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
    /// Column `index` in its own storage class.
    ///
    /// Read through the column's `sqlite3_value`: each `sqlite3_column_*` call
    /// checks the statement and the index and records a malloc failure, and a
    /// text column took three of them; the value's own accessors skip those
    /// checks, so a column costs one checked call (see Benchmarks/README.md,
    /// "Statement column reads and arguments"). SQLite calls the value
    /// *unprotected*: its accessors take no mutex, which is safe here because a
    /// connection is opened without one (`SQLITE_OPEN_NOMUTEX`) and used by one
    /// thread at a time.
    @inline(__always)
    public func value(at index: Int) -> DatabaseValue { DatabaseValue(copying: borrowedValue(at: index)) }

    /// Column `index` in its own storage class, its text or bytes not copied
    /// (see ``BorrowedColumnValue``): for a reader that copies them into memory
    /// of its own, where ``value(at:)`` would first make a `String` or `Data`.
    @inline(__always)
    public func borrowedValue(at index: Int) -> BorrowedColumnValue {
        guard let value = sqlite3_column_value(handle, Int32(index)) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // The text first, then its length (SQLite's documented order).
            guard let text = sqlite3_value_text(value) else { return .text(UnsafeBufferPointer(start: nil, count: 0)) }
            return .text(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes else { return .blob(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return .blob(UnsafeRawBufferPointer(start: bytes, count: count))
        default: return .null
        }
    }
}

/// A column of a statement's current row as SQLite holds it: numbers by value,
/// text (UTF-8, as stored) and blob bytes *in the statement's memory*, valid
/// only until the statement steps, is reset or finalised, or the same column is
/// read again. Copy them before any of those (``DatabaseValue/init(copying:)``
/// does); never keep the pointers.
public enum BorrowedColumnValue {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// Text: its UTF-8 bytes as stored, not validated (see ``DatabaseValue/init(copying:)``).
    case text(UnsafeBufferPointer<UInt8>)
    /// A blob's bytes.
    case blob(UnsafeRawBufferPointer)
}

extension DatabaseValue {
    /// The value `borrowed` lends, copied: text decoded as UTF-8 (an invalid
    /// sequence becomes U+FFFD, as `String(decoding:as:)` does), bytes into `Data`.
    @inline(__always)
    public init(copying borrowed: BorrowedColumnValue) {
        switch borrowed {
        case .null: self = .null
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .text(let bytes): self = .text(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): self = .blob(bytes.isEmpty ? Data() : Data(bytes))
        }
    }
}
