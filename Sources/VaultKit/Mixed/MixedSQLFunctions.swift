import Foundation
import VaultCore

/// The SQL functions that query mixed values (see the storage layout in
/// MixedValue.swift). They decode a stored value, follow a path into its
/// nested collections, and apply Realm's comparison rules, so that the query
/// compiler never reasons about tag bytes.
///
/// - `vk_mixed_test(value, op, options, argument, step…)` → 1 or 0: whether
///   the value at the path (any of them, through `[*]`) satisfies `op` against
///   `argument` (a mixed-encoded value; a type name for `@type`; a two-element
///   list for BETWEEN). Steps: an INTEGER is a list index (-1 the last), TEXT a
///   dictionary key, NULL every element.
/// - `vk_mixed_size(value, step…)`: the element count of the list or
///   dictionary at the path, or NULL.
/// - `vk_mixed_sort(value)`: a BLOB whose byte order is Realm's mixed sort order.
/// - `vk_mixed_links(value, link)` → 1 when the value holds the link anywhere;
///   `vk_mixed_unlink(value, link)`: the value with that link replaced by nil.
/// - `vk_mixed_min/max/sum/avg(value)`: Realm's mixed aggregates.
enum MixedSQLFunctions {
    /// The operations of `vk_mixed_test`.
    enum Operation: Int64 {
        case equal = 1, notEqual, less, lessOrEqual, greater, greaterOrEqual
        case beginsWith, endsWith, contains, like
        case typeEqual, typeNotEqual, between
    }

    static let functions: [DatabaseFunction] = [
        DatabaseFunction("vk_mixed_test", argumentCount: -1, test),
        DatabaseFunction("vk_mixed_size", argumentCount: -1, size),
        DatabaseFunction("vk_mixed_sort", argumentCount: 1, sortKey),
        DatabaseFunction("vk_mixed_of", argumentCount: 2, mixedOf),
        DatabaseFunction("vk_mixed_links", argumentCount: 2, links),
        DatabaseFunction("vk_mixed_unlink", argumentCount: 2, unlink),
        DatabaseFunction("vk_mixed_min", argumentCount: 1, aggregate: MixedExtremum<Minimum>.self),
        DatabaseFunction("vk_mixed_max", argumentCount: 1, aggregate: MixedExtremum<Maximum>.self),
        DatabaseFunction("vk_mixed_sum", argumentCount: 1, aggregate: MixedTotal<SumOutput>.self),
        DatabaseFunction("vk_mixed_avg", argumentCount: 1, aggregate: MixedTotal<AverageOutput>.self),
    ]

    /// The path steps of a query, as SQL arguments.
    enum PathStep: Equatable {
        case index(Int)
        case key(String)
        case everyElement

        var sqlValue: DatabaseValue {
            switch self {
            case .index(let i): .integer(Int64(i))
            case .key(let k): .text(k)
            case .everyElement: .null
            }
        }

        init(_ value: DatabaseValue) {
            switch value {
            case .integer(let i): self = .index(Int(clamping: i))
            case .text(let k): self = .key(k)
            default: self = .everyElement
            }
        }
    }

    /// The values a path reaches: one (nil when missing) without `[*]`, any number with it.
    static func follow(_ value: MixedValue, _ steps: ArraySlice<PathStep>) -> [MixedValue] {
        guard let step = steps.first else { return [value] }
        let rest = steps.dropFirst()
        switch (step, value) {
        case (.index(let index), .list(let elements)):
            let position = index < 0 ? elements.count + index : index
            return follow(elements.indices.contains(position) ? elements[position] : .none, rest)
        case (.key(let key), .dictionary(let entries)):
            return follow(entries.first { $0.key == key }?.value ?? .none, rest)
        case (.everyElement, .list(let elements)):
            return elements.flatMap { follow($0, rest) }
        case (.everyElement, .dictionary(let entries)):
            return entries.flatMap { follow($0.value, rest) }
        case (.everyElement, _):
            return []
        default:
            // A key into a list, an index into a dictionary, a step into a scalar: nothing there.
            return follow(.none, rest)
        }
    }

    /// Whether `value op argument` holds under Realm's mixed rules.
    static func evaluate(_ value: MixedValue, _ op: Operation, options: ComparisonOptions, argument: MixedValue, typeMatcher: ((MixedValue) -> Bool)?) -> Bool {
        switch op {
        case .equal: return isEqual(value, argument, options: options)
        case .notEqual: return !isEqual(value, argument, options: options)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .none = argument { return false }
            if case .none = value { return false }
            guard let order = value.compare(to: argument) else { return false }
            switch op {
            case .less: return order == .orderedAscending
            case .lessOrEqual: return order != .orderedDescending
            case .greater: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .between:
            guard case .list(let bounds) = argument, bounds.count == 2 else { return false }
            return evaluate(value, .greaterOrEqual, options: options, argument: bounds[0], typeMatcher: nil)
                && evaluate(value, .lessOrEqual, options: options, argument: bounds[1], typeMatcher: nil)
        case .typeEqual: return typeMatcher?(value) ?? false
        case .typeNotEqual: return !(typeMatcher?(value) ?? true)
        case .beginsWith, .endsWith, .contains, .like:
            return matchText(value, op, options: options, argument: argument)
        }
    }

    private static func isEqual(_ value: MixedValue, _ argument: MixedValue, options: ComparisonOptions = []) -> Bool {
        if case .none = argument { if case .none = value { return true } else { return false } }
        if !options.isEmpty, case .string(let a) = value, case .string(let b) = argument {
            return QueryFolding.fold(a, options) == QueryFolding.fold(b, options)
        }
        return value.compare(to: argument) == .orderedSame
    }

    private static func matchText(_ value: MixedValue, _ op: Operation, options: ComparisonOptions, argument: MixedValue) -> Bool {
        switch (value, argument) {
        case (.string(let text), .string(let needle)):
            let haystack = options.isEmpty ? text : QueryFolding.fold(text, options)
            let pattern = options.isEmpty ? needle : QueryFolding.fold(needle, options)
            switch op {
            case .beginsWith: return haystack.utf8.starts(with: pattern.utf8)
            case .endsWith: return haystack.utf8.reversed().starts(with: pattern.utf8.reversed())
            case .contains: return pattern.isEmpty || haystack.contains(pattern)
            default: return LikePattern.matches(Array(haystack.unicodeScalars), Array(pattern.unicodeScalars))
            }
        case (.data(let data), .data(let needle)):
            switch op {
            case .beginsWith: return data.starts(with: needle)
            case .endsWith: return data.reversed().starts(with: needle.reversed())
            case .contains: return needle.isEmpty || data.range(of: needle) != nil
            default: return false
            }
        default: return false
        }
    }

    // MARK: Functions

    @Sendable
    private static func test(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        guard arguments.count >= 4, let op = Operation(rawValue: arguments.int64(1)) else { return result.setError("vk_mixed_test: bad arguments") }
        let options = ComparisonOptions(rawValue: Int(arguments.int64(2)))
        guard let value = try? MixedCodec.decode(arguments.value(0)) else { return result.setInteger(0) }
        var argument = MixedValue.none
        var matcher: ((MixedValue) -> Bool)?
        if op == .typeEqual || op == .typeNotEqual {
            matcher = arguments.value(3).string.flatMap(MixedTypeName.matcher(for:))
        } else {
            guard let decoded = try? MixedCodec.decode(arguments.value(3)) else { return result.setInteger(0) }
            argument = decoded
        }
        let steps = (4..<arguments.count).map { PathStep(arguments.value($0)) }
        let reached = follow(value, steps[...])
        result.setInteger(reached.contains { evaluate($0, op, options: options, argument: argument, typeMatcher: matcher) } ? 1 : 0)
    }

    /// A typed column's value in the mixed encoding (`type` is a PropertyType name, or `link:<Class>`).
    @Sendable
    private static func mixedOf(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        let stored = arguments.value(0)
        guard !stored.isNull, let typeName = arguments.value(1).string else { return result.setNull() }
        let value: MixedValue?
        if typeName.hasPrefix("link:") {
            value = stored.int64.map { .link(className: String(typeName.dropFirst(5)), rowID: $0) }
        } else {
            switch PropertyType(rawValue: typeName) {
            case .bool: value = stored.int64.map { .bool($0 != 0) }
            case .int: value = stored.int64.map { .int($0) }
            case .float: value = stored.double.map { .float(Float($0)) }
            case .double: value = stored.double.map { .double($0) }
            case .string: value = stored.string.map { .string($0) }
            case .data: value = stored.data.map { .data($0) }
            case .date: value = stored.double.map { .date($0) }
            case .uuid: value = UUID._vaultDecode(stored).map { .uuid($0) }
            case .objectId: value = stored.data.map { .objectId([UInt8]($0)) }
            case .decimal: value = Decimal128._vaultDecode(stored).map { .decimal($0) }
            case .mixed: return result.set(stored)
            case .object, nil: value = nil
            }
        }
        guard let value else { return result.setNull() }
        result.set(MixedCodec.encode(value))
    }

    @Sendable
    private static func size(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        guard arguments.count >= 1, let value = try? MixedCodec.decode(arguments.value(0)) else { return result.setNull() }
        let steps = (1..<arguments.count).map { PathStep(arguments.value($0)) }
        guard let reached = follow(value, steps[...]).first else { return result.setNull() }
        switch reached {
        case .list(let elements): result.setInteger(Int64(elements.count))
        case .dictionary(let entries): result.setInteger(Int64(entries.count))
        default: result.setNull()
        }
    }

    @Sendable
    private static func sortKey(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        guard let value = try? MixedCodec.decode(arguments.value(0)) else { return result.setNull() }
        result.set(.blob(Data(MixedSortKey.bytes(of: value))))
    }

    @Sendable
    private static func links(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        guard let value = try? MixedCodec.decode(arguments.value(0)), let link = try? MixedCodec.decode(arguments.value(1)) else { return result.setInteger(0) }
        result.setInteger(value.contains(link: link) ? 1 : 0)
    }

    @Sendable
    private static func unlink(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        let stored = arguments.value(0)
        guard let value = try? MixedCodec.decode(stored), let link = try? MixedCodec.decode(arguments.value(1)) else { return result.set(stored) }
        result.set(MixedCodec.encode(value.removing(link: link)))
    }
}

extension MixedValue {
    func contains(link: MixedValue) -> Bool {
        switch self {
        case .link: self == link
        case .list(let elements): elements.contains { $0.contains(link: link) }
        case .dictionary(let entries): entries.contains { $0.value.contains(link: link) }
        default: false
        }
    }

    /// The value with every occurrence of `link` replaced by nil.
    func removing(link: MixedValue) -> MixedValue {
        switch self {
        case .link: self == link ? .none : self
        case .list(let elements): .list(elements.map { $0.removing(link: link) })
        case .dictionary(let entries): .dictionary(entries.map { ($0.key, $0.value.removing(link: link)) })
        default: self
        }
    }
}

/// Realm's LIKE on Unicode scalars: `*` any run, `?` one character, `\` escapes.
enum LikePattern {
    static func matches(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count {
                var literal = pattern[p]
                var width = 1
                if literal == "\\", p + 1 < pattern.count { literal = pattern[p + 1]; width = 2 }
                if width == 1 && literal == "*" { starP = p; starT = t; p += 1; continue }
                if (width == 1 && literal == "?") || literal == text[t] { t += 1; p += width; continue }
            }
            guard starP >= 0 else { return false }
            p = starP + 1
            starT += 1
            t = starT
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// Byte strings whose order is Realm's mixed sort order (rank, then value).
enum MixedSortKey {
    static func bytes(of value: MixedValue) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(value.rank)]
        switch value {
        case .none: break
        case .bool(let b): bytes.append(b ? 1 : 0)
        case .int, .float, .double, .decimal: append(orderedDouble: value.doubleValue ?? 0, to: &bytes)
        case .string(let s): bytes += Array(s.utf8)
        case .data(let d): bytes += d
        case .date(let t): append(orderedDouble: t, to: &bytes)
        case .objectId(let o): bytes += o
        case .uuid(let u): bytes += withUnsafeBytes(of: u.uuid) { Array($0) }
        case .link(let className, let rowID):
            bytes += Array(className.utf8) + [0]
            append(UInt64(bitPattern: rowID) ^ (1 << 63), to: &bytes)
        case .list(let elements): append(UInt64(elements.count), to: &bytes)
        case .dictionary(let entries): append(UInt64(entries.count), to: &bytes)
        }
        return bytes
    }

    /// A double's bits arranged so that unsigned byte order is numeric order.
    private static func append(orderedDouble value: Double, to bytes: inout [UInt8]) {
        let bits = value.bitPattern
        append(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &bytes)
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
