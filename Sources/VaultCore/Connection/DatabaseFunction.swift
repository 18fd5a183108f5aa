import CSQLite
import Foundation

// MARK: - SQL functions, aggregates and collations
//
// SQLite calls application code back from inside a statement: scalar
// functions per row, aggregates per row then once per group, collations per
// comparison. These types let a layer above (VaultKit's query compiler, or an
// app using `VaultDatabase` directly) register such code without touching
// the C API. They read arguments in place — a function called once per row
// of a 100,000-row scan must not allocate per call — so the argument and
// result views are only valid inside the callback (sqlite.org/c3ref/value_blob.html:
// the pointers "become invalid" after the function returns).

/// The arguments of one call of a SQL function, read in place.
///
/// Valid only inside the callback that received it. The accessors are
/// inlinable: a function called once per row pays no call per argument.
public struct DatabaseFunctionArguments {
    @usableFromInline let values: UnsafeMutablePointer<OpaquePointer?>?
    /// The number of arguments.
    public let count: Int

    init(_ values: UnsafeMutablePointer<OpaquePointer?>?, count: Int32) {
        self.values = values
        self.count = Int(count)
    }

    @inlinable
    func raw(_ index: Int) -> OpaquePointer? {
        precondition(index >= 0 && index < count, "SQL function argument \(index) of \(count)")
        return values?[index]
    }

    /// Whether argument `index` is SQL NULL.
    @inlinable
    public func isNull(_ index: Int) -> Bool { sqlite3_value_type(raw(index)) == SQLITE_NULL }

    /// Argument `index` as an integer (SQLite's conversion rules apply).
    @inlinable
    public func int64(_ index: Int) -> Int64 { sqlite3_value_int64(raw(index)) }

    /// Argument `index` as a double (SQLite's conversion rules apply).
    @inlinable
    public func double(_ index: Int) -> Double { sqlite3_value_double(raw(index)) }

    /// The UTF-8 bytes of argument `index` (text, or a value converted to
    /// text), in place; `nil` for NULL. The buffer is valid until the
    /// callback returns (sqlite.org/c3ref/value_blob.html).
    @inlinable
    public func utf8(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        let value = raw(index)
        guard sqlite3_value_type(value) != SQLITE_NULL, let text = sqlite3_value_text(value) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    }

    /// Argument `index` as a value, copied.
    public func value(_ index: Int) -> DatabaseValue {
        let value = raw(index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return withUTF8(index) { .text(String(decoding: $0, as: UTF8.self)) } ?? .null
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// Calls `body` with the UTF-8 bytes of argument `index` (text, or a value
    /// converted to text), without copying them; `nil` for NULL.
    @inlinable
    public func withUTF8<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard let bytes = utf8(index) else { return nil }
        return try body(bytes)
    }
}

/// Where a SQL function puts its result. Valid only inside the callback.
public struct DatabaseFunctionResult {
    @usableFromInline let context: OpaquePointer?

    init(_ context: OpaquePointer?) { self.context = context }

    /// The result is SQL NULL.
    @inlinable
    public func setNull() { sqlite3_result_null(context) }
    /// The result is an integer.
    @inlinable
    public func setInteger(_ value: Int64) { sqlite3_result_int64(context, value) }
    /// The result is a double.
    @inlinable
    public func setDouble(_ value: Double) { sqlite3_result_double(context, value) }
    /// The result is text given as UTF-8 bytes (copied by SQLite).
    public func setText(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        // A zero-length buffer may have no base address; SQLite needs a pointer for ''.
        let empty: UInt8 = 0
        withUnsafePointer(to: empty) { emptyPointer in
            let pointer = UnsafeRawPointer(bytes.baseAddress ?? emptyPointer).assumingMemoryBound(to: CChar.self)
            sqlite3_result_text(context, pointer, Int32(clamping: bytes.count), vaultkit_sqlite_transient())
        }
    }
    /// The result is text.
    public func setText(_ text: String) {
        var text = text
        text.withUTF8 { setText(utf8: $0) }
    }
    /// The result is `value`.
    public func set(_ value: DatabaseValue) {
        switch value {
        case .null: setNull()
        case .integer(let v): setInteger(v)
        case .real(let v): setDouble(v)
        case .text(let v): setText(v)
        case .blob(let v):
            v.withUnsafeBytes { raw in
                sqlite3_result_blob(context, raw.baseAddress, Int32(clamping: raw.count), vaultkit_sqlite_transient())
            }
        }
    }
    /// The call fails with `message` (the statement stops with an error).
    public func setError(_ message: String) {
        sqlite3_result_error(context, message, -1)
    }
}

/// An aggregate SQL function's running state: one instance per group.
public protocol DatabaseAggregate: Sendable {
    /// A fresh state, before the first row of a group.
    init()
    /// Takes in one row's arguments.
    mutating func step(_ arguments: DatabaseFunctionArguments)
    /// Writes the group's result.
    func finalize(_ result: DatabaseFunctionResult)
}

/// A SQL function, scalar or aggregate, to register on a connection with
/// ``Database/add(_:)-(DatabaseFunction)`` (or on every connection of a vault
/// through ``VaultDatabase/Configuration/prepareDatabase``).
///
/// ```swift
/// let double = DatabaseFunction("twice", argumentCount: 1) { arguments, result in
///     result.setInteger(arguments.int64(0) * 2)
/// }
/// try db.add(double)       // SELECT twice(age) FROM person
/// ```
public final class DatabaseFunction: Sendable {
    /// The name SQL calls it by.
    public let name: String
    /// The number of arguments (-1: any number).
    public let argumentCount: Int32
    /// Whether the same arguments always give the same result (lets SQLite use it in indexes and factor calls out).
    public let isDeterministic: Bool
    let scalar: (@Sendable (DatabaseFunctionArguments, DatabaseFunctionResult) -> Void)?
    let makeAggregate: (@Sendable () -> any DatabaseAggregate)?

    /// A scalar function: `body` computes one call's result.
    public init(_ name: String, argumentCount: Int32, deterministic: Bool = true,
                _ body: @escaping @Sendable (DatabaseFunctionArguments, DatabaseFunctionResult) -> Void) {
        self.name = name
        self.argumentCount = argumentCount
        self.isDeterministic = deterministic
        self.scalar = body
        self.makeAggregate = nil
    }

    /// An aggregate function whose state per group is an `Aggregate`.
    public init<Aggregate: DatabaseAggregate>(_ name: String, argumentCount: Int32, deterministic: Bool = true,
                                              aggregate: Aggregate.Type) {
        self.name = name
        self.argumentCount = argumentCount
        self.isDeterministic = deterministic
        self.scalar = nil
        self.makeAggregate = { Aggregate() }
    }
}

/// A collation (`ORDER BY x COLLATE name`, `x = y COLLATE name`), registered
/// with ``Database/add(_:)-(DatabaseCollation)``.
public final class DatabaseCollation: Sendable {
    /// The name SQL uses after `COLLATE`.
    public let name: String
    let compare: @Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult

    /// A collation comparing two texts given as UTF-8 bytes.
    public init(_ name: String, _ compare: @escaping @Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult) {
        self.name = name
        self.compare = compare
    }
}

extension Database {
    /// Registers a SQL function on this connection (replacing one of the same name and argument count).
    public func add(_ function: DatabaseFunction) throws(VaultError) {
        var flags = SQLITE_UTF8
        if function.isDeterministic { flags |= SQLITE_DETERMINISTIC }
        // SQLite keeps a reference; `releaseBox` drops it when the function is replaced or the connection closes.
        let box = Unmanaged.passRetained(function).toOpaque()
        let status = function.scalar != nil
            ? sqlite3_create_function_v2(handle, function.name, function.argumentCount, flags, box, callScalar, nil, nil, releaseBox)
            : sqlite3_create_function_v2(handle, function.name, function.argumentCount, flags, box, nil, stepAggregate, finalizeAggregate, releaseBox)
        guard status == SQLITE_OK else {
            throw VaultError.invalidConfiguration("could not register the SQL function \(function.name) (SQLite status \(status))")
        }
    }

    /// Registers a collation on this connection.
    public func add(_ collation: DatabaseCollation) throws(VaultError) {
        let box = Unmanaged.passRetained(collation).toOpaque()
        let status = sqlite3_create_collation_v2(handle, collation.name, SQLITE_UTF8, box, compareTexts, releaseBox)
        guard status == SQLITE_OK else {
            throw VaultError.invalidConfiguration("could not register the collation \(collation.name) (SQLite status \(status))")
        }
    }
}

private let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { box in
    guard let box else { return }
    Unmanaged<AnyObject>.fromOpaque(box).release()
}

private func function(of context: OpaquePointer?) -> DatabaseFunction? {
    guard let box = sqlite3_user_data(context) else { return nil }
    return Unmanaged<DatabaseFunction>.fromOpaque(box).takeUnretainedValue()
}

private let callScalar: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, values in
    guard let box = sqlite3_user_data(context) else { return }
    // Called once per row: borrow the function without retaining it (SQLite holds it for the connection's life).
    Unmanaged<DatabaseFunction>.fromOpaque(box)._withUnsafeGuaranteedRef { function in
        function.scalar?(DatabaseFunctionArguments(values, count: count), DatabaseFunctionResult(context))
    }
}

/// One group's aggregate state, owned by SQLite's aggregate context between step and finalize.
private final class AggregateState {
    var aggregate: any DatabaseAggregate
    init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
}

private func aggregateSlot(_ context: OpaquePointer?, create: Bool) -> UnsafeMutablePointer<UnsafeMutableRawPointer?>? {
    let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
    return sqlite3_aggregate_context(context, create ? size : 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
}

private let stepAggregate: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, values in
    guard let slot = aggregateSlot(context, create: true) else {
        sqlite3_result_error_nomem(context)
        return
    }
    let state: AggregateState
    if let existing = slot.pointee {
        state = Unmanaged<AggregateState>.fromOpaque(existing).takeUnretainedValue()
    } else {
        guard let make = function(of: context)?.makeAggregate else { return }
        state = AggregateState(make())
        slot.pointee = Unmanaged.passRetained(state).toOpaque()
    }
    state.aggregate.step(DatabaseFunctionArguments(values, count: count))
}

private let finalizeAggregate: @convention(c) (OpaquePointer?) -> Void = { context in
    let result = DatabaseFunctionResult(context)
    // No row in the group: SQLite never called step, so there is no state; finalize a fresh one.
    guard let slot = aggregateSlot(context, create: false), let raw = slot.pointee else {
        function(of: context)?.makeAggregate?().finalize(result)
        return
    }
    slot.pointee = nil
    Unmanaged<AggregateState>.fromOpaque(raw).takeRetainedValue().aggregate.finalize(result)
}

private let compareTexts: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { box, length1, text1, length2, text2 in
    guard let box else { return 0 }
    let collation = Unmanaged<DatabaseCollation>.fromOpaque(box).takeUnretainedValue()
    switch collation.compare(UnsafeRawBufferPointer(start: text1, count: Int(length1)), UnsafeRawBufferPointer(start: text2, count: Int(length2))) {
    case .orderedAscending: return -1
    case .orderedSame: return 0
    case .orderedDescending: return 1
    }
}
