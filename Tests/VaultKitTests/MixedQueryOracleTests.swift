import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Generated nested mixed values and path queries, checked against an
// independent evaluation in plain Swift of the spec's rules:
// - a path without [*] reaches one value; a missing key or index (or a step
//   into a value that is not the right collection) reads as nil;
// - [*] reaches every element; the comparison holds if it holds for any;
// - numbers compare numerically across int, float and double; strings and
//   bools only with their own type; nil equals only nil; `!=` is the negation
//   of `==` (so true across types); ordering is false across types and with nil.
// Where the spec leaves a case open (nil reached below [*]), the generator
// avoids queries whose answer depends on it: no `!=`, nil or 'null' after [*].

/// A generated value as plain Swift data: what the oracle reads.
enum MxPlain: Sendable, CustomStringConvertible {
    case none, int(Int), double(Double), float(Float), string(String), bool(Bool)
    case list([MxPlain]), dictionary([String: MxPlain])

    /// The same value as an unmanaged AnyVaultValue.
    var mixed: AnyVaultValue {
        switch self {
        case .none: .none
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .float(let v): .float(v)
        case .string(let v): .string(v)
        case .bool(let v): .bool(v)
        case .list(let items): .fromArray(items.map(\.mixed))
        case .dictionary(let entries): .fromDictionary(entries.mapValues(\.mixed))
        }
    }

    /// The value as a Double when it is a number.
    var number: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        case .float(let v): Double(v)
        default: nil
        }
    }

    /// The spec's @type name of the value.
    var typeName: String {
        switch self {
        case .none: "null"
        case .int: "int"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .bool: "bool"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }

    var description: String {
        switch self {
        case .none: "nil"
        case .int(let v): "\(v)"
        case .double(let v): "\(v)d"
        case .float(let v): "\(v)f"
        case .string(let v): "'\(v)'"
        case .bool(let v): "\(v)"
        case .list(let items): "[\(items.map(\.description).joined(separator: ", "))]"
        case .dictionary(let entries): "{\(entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        }
    }
}

/// One subscript of a path.
enum MxStep: Sendable {
    case key(String), index(Int), first, last, any
}

/// A generated query: its text, arguments, and the oracle's verdict for a value.
struct MxGeneratedQuery {
    var text: String
    var arguments: [Any?]
    var matches: (MxPlain) -> Bool
}

extension QueryFuzzTests.Generator {
    /// A number in 0..<n.
    fileprivate mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    fileprivate mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    fileprivate mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// The generator and the oracle.
enum MxOracle {
    typealias Generator = QueryFuzzTests.Generator
    static let keys = ["a", "b", "c"]
    static let typeNames = ["null", "int", "double", "float", "string", "bool", "list", "dictionary", "array", "object",
                            "numeric", "collection", "INT", "Double"]

    // MARK: Generating

    /// A value nesting at most 4 collections (collections at depths 0...3).
    static func value(depth: Int, _ g: inout Generator) -> MxPlain {
        let collectionChance = depth == 0 ? 75 : depth < 4 ? 45 : 0
        guard g.chance(collectionChance) else { return scalar(&g) }
        if g.chance(50) {
            var items: [MxPlain] = []
            for _ in 0..<g.below(4) { items.append(value(depth: depth + 1, &g)) }
            return .list(items)
        }
        var entries: [String: MxPlain] = [:]
        for key in keys where g.chance(65) { entries[key] = value(depth: depth + 1, &g) }
        return .dictionary(entries)
    }

    /// A scalar: ints and doubles that meet (2 and 2.0), strings that look like numbers, bools, nil.
    static func scalar(_ g: inout Generator) -> MxPlain {
        switch g.below(12) {
        case 0, 1, 2: .int(g.pick([-2, 0, 1, 2, 3, 5]))
        case 3, 4: .double(g.pick([-1.5, 0.5, 2.0, 2.5, 3.0]))
        case 5: .float(g.pick([1.5, 2.0] as [Float]))
        case 6, 7, 8: .string(g.pick(["a", "b", "c", "ab", "2"]))
        case 9, 10: .bool(g.chance(50))
        default: .none
        }
    }

    /// A path of 0 to 3 steps; "d" is never a key, index 2 is often out of range.
    static func path(_ g: inout Generator) -> [MxStep] {
        (0..<g.below(4)).map { _ in
            switch g.below(10) {
            case 0, 1, 2, 3: .key(g.pick(keys + ["d"]))
            case 4, 5: .index(g.below(3))
            case 6: .first
            case 7: .last
            default: .any
            }
        }
    }

    /// A literal to compare with (nil only where allowed).
    static func literal(ordering: Bool, allowNil: Bool, _ g: inout Generator) -> MxPlain {
        switch g.below(ordering ? 8 : 11) {
        case 0, 1, 2: .int(g.pick([0, 1, 2, 3, 5]))
        case 3, 4: .double(g.pick([2.0, 2.5, -1.5]))
        case 5, 6, 7: .string(g.pick(["a", "b", "2", "ab"]))
        case 8, 9: .bool(g.chance(50))
        default: allowNil ? .none : .int(2)
        }
    }

    /// A query `value<path> <op> <literal>` or `value<path>.@type == '<name>'`, and its oracle.
    static func query(_ g: inout Generator) -> MxGeneratedQuery {
        let steps = path(&g)
        let hasWildcard = steps.contains { if case .any = $0 { true } else { false } }
        var text = "value", arguments: [Any?] = []
        for step in steps {
            switch step {
            case .key(let key):
                if g.chance(30) { text += "[%@]"; arguments.append(key) } else { text += "['\(key)']" }
            case .index(let index):
                if g.chance(30) { text += "[%@]"; arguments.append(index) } else { text += "[\(index)]" }
            case .first: text += "[FIRST]"
            case .last: text += "[LAST]"
            case .any:
                if g.chance(30) { text += "[%K]"; arguments.append("#any") } else { text += "[*]" }
            }
        }
        if g.chance(20) {
            let name = g.pick(typeNames.filter { !hasWildcard || $0 != "null" })
            if g.chance(30) { text += ".@type == %@"; arguments.append(name) } else { text += ".@type == '\(name)'" }
            return MxGeneratedQuery(text: text, arguments: arguments) { value in reach(value, steps[...]).contains { hasType($0, name) } }
        }
        let op = g.pick(hasWildcard ? ["==", "<", ">", "<=", ">="] : ["==", "!=", "<", ">", "<=", ">="])
        let ordering = op != "==" && op != "!="
        let literal = literal(ordering: ordering, allowNil: !hasWildcard, &g)
        switch g.below(3) {
        case 0:
            text += " \(op) %@"
            arguments.append(swiftValue(literal))
        case 1:
            text += " \(op) %@"
            arguments.append(literal.mixed)
        default:
            text += " \(op) \(queryLiteral(literal))"
        }
        return MxGeneratedQuery(text: text, arguments: arguments) { value in reach(value, steps[...]).contains { holds($0, op, literal) } }
    }

    /// A literal as query text.
    static func queryLiteral(_ literal: MxPlain) -> String {
        switch literal {
        case .int(let v): "\(v)"
        case .double(let v): "\(v)"
        case .float(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .bool(let v): v ? "true" : "false"
        case .none, .list, .dictionary: "nil"
        }
    }

    /// A literal as a Swift argument.
    static func swiftValue(_ literal: MxPlain) -> Any? {
        switch literal {
        case .int(let v): v
        case .double(let v): v
        case .float(let v): v
        case .string(let v): v
        case .bool(let v): v
        case .none, .list, .dictionary: nil
        }
    }

    // MARK: The oracle

    /// The values a path reaches: missing steps read as nil, [*] reaches every element (none of a non-collection).
    static func reach(_ value: MxPlain, _ path: ArraySlice<MxStep>) -> [MxPlain] {
        guard let step = path.first else { return [value] }
        let rest = path.dropFirst()
        switch (step, value) {
        case (.any, .list(let items)): return items.flatMap { reach($0, rest) }
        case (.any, .dictionary(let entries)): return entries.values.flatMap { reach($0, rest) }
        case (.any, _): return []
        case (.index(let index), .list(let items)) where index < items.count: return reach(items[index], rest)
        case (.first, .list(let items)) where !items.isEmpty: return reach(items[0], rest)
        case (.last, .list(let items)) where !items.isEmpty: return reach(items[items.count - 1], rest)
        case (.key(let key), .dictionary(let entries)): return reach(entries[key] ?? MxPlain.none, rest)
        default: return reach(MxPlain.none, rest)
        }
    }

    /// Mixed equality: numbers by value across types, other values only with their own type.
    static func equal(_ a: MxPlain, _ b: MxPlain) -> Bool {
        if let x = a.number, let y = b.number { return x == y }
        switch (a, b) {
        case (.none, .none): return true
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        default: return false
        }
    }

    /// Mixed ordering: numbers with numbers, strings with strings (by UTF-8 bytes); nil otherwise.
    static func order(_ a: MxPlain, _ b: MxPlain) -> ComparisonResult? {
        if let x = a.number, let y = b.number { return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        if case .string(let x) = a, case .string(let y) = b {
            if x == y { return .orderedSame }
            return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? .orderedAscending : .orderedDescending
        }
        return nil
    }

    static func holds(_ value: MxPlain, _ op: String, _ literal: MxPlain) -> Bool {
        switch op {
        case "==": return equal(value, literal)
        case "!=": return !equal(value, literal)
        default:
            guard let result = order(value, literal) else { return false }
            switch op {
            case "<": return result == .orderedAscending
            case ">": return result == .orderedDescending
            case "<=": return result != .orderedDescending
            default: return result != .orderedAscending
            }
        }
    }

    static func hasType(_ value: MxPlain, _ name: String) -> Bool {
        switch name.lowercased() {
        case "numeric": value.number != nil
        case "collection": value.typeName == "list" || value.typeName == "dictionary"
        case "array": value.typeName == "list"
        case "object": value.typeName == "dictionary"
        case let other: value.typeName == other
        }
    }
}

extension MixedQueryTests {
    @Test("generated nested values and path queries (index, key, FIRST, LAST, [*]; ==, !=, <, >, <=, >=, @type) agree with an independent oracle")
    func generatedQueriesMatchTheOracle() throws {
        let seed: UInt64 = 0x4D49_5845_4400_0001
        var generator = QueryFuzzTests.Generator(seed: seed)
        let values: [MxPlain] = (0..<200).map { _ in MxOracle.value(depth: 0, &generator) }

        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("mixed-oracle.vault"), encryptionKey: testKey,
                                                                 objectTypes: [MxQ.self, MxTarget.self]))
        try vault.write {
            for (index, value) in values.enumerated() {
                let object = MxQ()
                object.id = index + 1
                object.value = value.mixed
                vault.add(object)
            }
        }
        for (index, value) in values.enumerated() {
            let stored = try #require(vault.object(ofType: MxQ.self, forPrimaryKey: index + 1))
            #expect(stored.value == value.mixed, "object \(index + 1): \(value)")
        }

        var splitting = 0
        for _ in 0..<150 {
            let query = MxOracle.query(&generator)
            let expected = Set(values.indices.filter { query.matches(values[$0]) }.map { $0 + 1 })
            if !expected.isEmpty && expected.count < values.count { splitting += 1 }
            do {
                let ids = Set(try vault.objects(MxQ.self).filter(query.text, arguments: query.arguments).map(\.id))
                let describe = { (ids: Set<Int>) in ids.sorted().prefix(4).map { "\($0): \(values[$0 - 1])" }.joined(separator: "; ") }
                #expect(ids == expected, """
                    seed \(seed): \(query.text) \(query.arguments.map { $0.map { "\($0)" } ?? "nil" })
                    matched but should not: \(describe(ids.subtracting(expected)))
                    should match but did not: \(describe(expected.subtracting(ids)))
                    """)
            } catch {
                Issue.record("seed \(seed): \(query.text): \(error)")
            }
        }
        #expect(splitting >= 40, "the generated queries should mostly split the objects: \(splitting) of 150 did")
    }
}
