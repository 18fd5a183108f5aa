import Foundation

/// A value SQLite stores: one of its five storage classes.
///
/// Literals build values directly, so arguments read naturally:
///
/// ```swift
/// try db.execute("INSERT INTO person(name, age) VALUES (?, ?)", arguments: ["Ada", 36])
/// ```
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The integer, if this is an integer.
    @inlinable public var int64: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The number as a double, for integers and reals.
    @inlinable public var double: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }
    /// The string, if this is text.
    @inlinable public var string: String? { if case .text(let v) = self { v } else { nil } }
    /// The bytes, if this is a blob.
    @inlinable public var data: Data? { if case .blob(let v) = self { v } else { nil } }
    /// Whether this is SQL NULL.
    @inlinable public var isNull: Bool { if case .null = self { true } else { false } }

    /// The bytes binding this value copies (its UTF-8 or its blob): what a
    /// statement reserves before it binds.
    var boundByteCount: Int {
        switch self {
        case .text(let v): v.utf8.count
        case .blob(let v): v.count
        default: 0
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension DatabaseValue: CustomStringConvertible {
    /// A short description that never prints the stored content (values may be secrets).
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text(let s): "TEXT(\(s.utf8.count) bytes)"
        case .blob(let d): "BLOB(\(d.count) bytes)"
        }
    }
}

/// One row read from a statement: its values in column order.
public struct Row: Sendable, Hashable {
    /// The values, in the order of the statement's columns.
    public var values: [DatabaseValue]

    public init(_ values: [DatabaseValue]) { self.values = values }

    /// The value of column `index` (0-based).
    public subscript(index: Int) -> DatabaseValue { values[index] }
}
