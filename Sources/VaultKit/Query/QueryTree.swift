import Foundation
import VaultCore

// The one query tree that string queries, typed `where` queries and
// `#Predicate` all become; `QueryCompiler` turns it into parameterised SQL.

/// A constant in a query: a literal of the string form or an argument.
enum QueryValue: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    case objectId(ObjectId)
    case decimal(Decimal)
    /// A managed object (link equality), or an unmanaged one (an error at compile time).
    case object(ObjectReference)
    /// A mixed list or dictionary (``AnyVaultValue``), compared whole.
    case mixed(MixedValue)

    /// An object compared by identity.
    struct ObjectReference: Equatable {
        let object: ObjectBase
        static func == (a: ObjectReference, b: ObjectReference) -> Bool { a.object === b.object }
    }

    /// What the value is, for error messages (never the value itself).
    var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "a Bool"
        case .int: "an integer"
        case .double: "a floating-point number"
        case .string: "a string"
        case .data: "Data"
        case .date: "a Date"
        case .uuid: "a UUID"
        case .objectId: "an ObjectId"
        case .decimal: "a Decimal"
        case .object(let reference): "a \(type(of: reference.object)) object"
        case .mixed(let value): if case .list = value { "a list" } else { "a dictionary" }
        }
    }

    /// A mixed argument: scalars as the plain value (comparisons on mixed
    /// values keep its type), lists and dictionaries whole.
    static func from(mixed value: AnyVaultValue) -> QueryValue? {
        switch value {
        case .none: return .null
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .double(Double(v))
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .object(let v): return .object(ObjectReference(object: v))
        case .objectId(let v): return .objectId(v)
        case .decimal128(let v): return .decimal(v.decimalValue)
        case .uuid(let v): return .uuid(v)
        case .list, .dictionary: return (try? value.detachedMixedValue()).map { .mixed($0) }
        }
    }

    /// Converts an argument of any supported Swift type.
    static func from(argument: Any?) -> QueryValue? {
        // The commonest argument, cast straight from the optional (no copy of the existential first).
        if let value = argument as? String { return .string(value) }
        guard let argument else { return .null }
        switch argument {
        // The common types first: each failed cast costs.
        case let value as String: return .string(value)
        case let value as Int: return .int(Int64(value))
        case let value as Double: return .double(value)
        case let value as Bool: return .bool(value)
        case let value as Date: return .date(value)
        case is NSNull: return .null
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt: return Int64(exactly: value).map { .int($0) } ?? .double(Double(value))
        case let value as UInt64: return Int64(exactly: value).map { .int($0) } ?? .double(Double(value))
        case let value as Float: return .double(Double(value))
        case let value as Substring: return .string(String(value))
        case let value as Data: return .data(value)
        case let value as UUID: return .uuid(value)
        case let value as ObjectId: return .objectId(value)
        case let value as Decimal: return .decimal(value)
        case let value as Decimal128: return .decimal(value.decimalValue)
        case let value as ObjectBase: return .object(ObjectReference(object: value))
        case let value as AnyVaultValue: return from(mixed: value)
        default:
            // Optionals boxed in Any, and enums (compared by raw value).
            let mirror = Mirror(reflecting: argument)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return .null }
                return from(argument: wrapped)
            }
            if let enumValue = argument as? any RawRepresentable {
                return from(argument: enumValue.rawValue)
            }
            // Custom persistable types compare as their stored form.
            if let custom = argument as? any CustomPersistable { return from(argument: custom.persistedArgument) }
            if let custom = argument as? any FailableCustomPersistable { return from(argument: custom.persistedArgument) }
            return nil
        }
    }
}

/// One step of a key path.
enum KeyPathStep: Equatable {
    /// A property, by its public name.
    case property(String)
    /// A property named by a `%K` argument: resolved like ``property(_:)``, but
    /// never echoed in an error message (arguments may hold a user's data).
    case argumentProperty(String)
    /// A map subscript: `metadata['key']`.
    case mapKey(String)
    /// `@count` / `@size` (and `[SIZE]` on a mixed value).
    case count
    /// A list index into a mixed value: `value[0]`; -1 is `[LAST]`.
    case index(Int)
    /// Every element of a mixed value's list or dictionary: `value[*]`.
    case everyElement
    /// A mixed value's type: `value.@type`.
    case type
    case min, max, sum, avg
    /// A map's keys or values: `@allKeys`, `@allValues`.
    case allKeys, allValues

    /// `['key']`, `[0]`, `[*]`: written after the step they apply to.
    var isSubscript: Bool {
        switch self {
        case .mapKey, .index, .everyElement: true
        default: false
        }
    }

    var isAggregate: Bool {
        switch self {
        case .count, .min, .max, .sum, .avg: true
        default: false
        }
    }

    var text: String {
        switch self {
        case .property(let name): name
        case .argumentProperty: "%K"
        case .mapKey(let key): "['\(key)']"
        case .count: "@count"
        case .min: "@min"
        case .max: "@max"
        case .sum: "@sum"
        case .avg: "@avg"
        case .allKeys: "@allKeys"
        case .allValues: "@allValues"
        case .index(let index): index < 0 ? "[LAST]" : "[\(index)]"
        case .everyElement: "[*]"
        case .type: "@type"
        }
    }
}

/// A key path: `friends.address.city`, `$x.age`, `tags.@count`.
struct QueryKeyPath: Equatable {
    /// The subquery variable it starts from (`$x`), or nil for the queried class.
    var variable: String?
    var steps: [KeyPathStep]
    /// Where it starts in the query string.
    var offset: Int?
    /// Typed queries: how many leading steps reach the last collection passed through.
    var collectionPrefix: Int? = nil

    var text: String {
        var parts: [String] = variable.map { ["$" + $0] } ?? []
        for step in steps {
            if step.isSubscript, !parts.isEmpty { parts[parts.count - 1] += step.text } else { parts.append(step.text) }
        }
        return parts.joined(separator: ".")
    }
}

/// A side of a comparison.
indirect enum QueryOperand: Equatable {
    case keyPath(QueryKeyPath)
    case value(QueryValue, offset: Int?)
    /// `{a, b, c}` (for IN and BETWEEN), or an array argument.
    case list([QueryOperand], offset: Int?)
    /// `SUBQUERY(collection, $x, predicate).@count`.
    case subqueryCount(collection: QueryKeyPath, variable: String, predicate: QueryPredicate, offset: Int?)

    var offset: Int? {
        switch self {
        case .keyPath(let path): path.offset
        case .value(_, let offset), .list(_, let offset), .subqueryCount(_, _, _, let offset): offset
        }
    }
}

/// The comparison operators.
enum ComparisonOperator: String, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case between = "BETWEEN"
    case `in` = "IN"

    var isStringOperator: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }
    var isOrdering: Bool { [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(self) }

    /// The operator with its operands swapped (`3 < age` is `age > 3`); nil for one that cannot swap.
    var mirrored: ComparisonOperator? {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: self
        case .beginsWith, .endsWith, .contains, .like, .between, .in: nil
        }
    }
}

/// `[c]`, `[d]`, `[cd]`.
struct ComparisonOptions: OptionSet, Equatable, Hashable {
    let rawValue: Int
    static let caseInsensitive = ComparisonOptions(rawValue: 1)
    static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}

/// `ANY`/`SOME`, `ALL`, `NONE` before a to-many key path.
enum Quantifier: String, Equatable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// A comparison: `lhs op rhs`, with options and a quantifier.
struct Comparison: Equatable {
    var lhs: QueryOperand
    var op: ComparisonOperator
    var rhs: QueryOperand
    var options: ComparisonOptions = []
    var quantifier: Quantifier?
    var offset: Int?
}

/// A query: the tree every input form becomes.
indirect enum QueryPredicate: Equatable {
    case constant(Bool)
    case and(QueryPredicate, QueryPredicate)
    case or(QueryPredicate, QueryPredicate)
    case not(QueryPredicate)
    case comparison(Comparison)
}
