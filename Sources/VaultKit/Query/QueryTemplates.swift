import Foundation
import VaultCore

// MARK: - Compiled-query templates
//
// `vault.objects(Person.self).filter("email == %@", email)` runs in apps on
// every keystroke and every screen. Parsing and compiling the text costs
// several times SQLite's own lookup through the index (Benchmarks/README.md,
// "Query templates"), and the SQL is the same every time: only the arguments
// change. So the first call of a query shape (class, query text, the kinds of
// its arguments) makes a template, and later calls only put their arguments
// into it.
//
// Which bindings and which tree values come from which argument is found by
// compiling the query a second time with sentinel arguments of the same kinds
// and comparing: a binding equal in both compilations is a constant; one
// that differs must be exactly argument i's value (as bound, untransformed)
// in both, or no template is made. The sentinels are chosen so that every
// value-dependent transformation the compiler applies shows: strings hold
// upper-case letters, a diacritic and LIKE's special characters (so `[c]`,
// `[d]` and LIKE patterns differ from the argument), integers are large
// (a Float or Decimal conversion rounds them), and strings and Data are
// always longer than the argument (BEGINSWITH and ENDSWITH bind the length). A query whose structure depends
// on an argument (`%K`, a subscript argument) compiles to different SQL and
// is never templated. Anything unusual (nil, arrays, objects, decimals)
// compiles each time, as before.
//
// Templates live in the vault instance's session (one thread or actor, no
// locks), at most `capacity` of them.

/// One query shape's compiled form, with the places its arguments go.
final class QueryTemplate {
    enum Slot {
        case constant(DatabaseValue)
        case argument(Int)
    }
    /// The parsed query of the first call (its argument values are replaced on use).
    let predicate: QueryPredicate
    /// `predicate.values`, kept.
    let values: [QueryValue]
    /// For each value of `predicate` (in traversal order): the argument it came from, if any.
    let valueSlots: [Int?]
    let compiled: CompiledResults
    let bindingSlots: [Slot]

    init(predicate: QueryPredicate, valueSlots: [Int?], compiled: CompiledResults, bindingSlots: [Slot]) {
        self.predicate = predicate
        self.values = predicate.values
        self.valueSlots = valueSlots
        self.compiled = compiled
        self.bindingSlots = bindingSlots
    }
}

/// Query shape → template, per session.
struct QueryTemplateCache {
    struct Key: Hashable {
        let schema: ObjectIdentifier
        let format: String
        /// The arguments' kinds, packed (see ``QueryTemplateCache/kinds(of:)``).
        let kinds: UInt64
    }
    static let capacity = 256
    private var templates: [Key: QueryTemplate] = [:]
    /// Shapes that cannot be templated (so the second compilation is not tried again).
    private var refused: Set<Key> = []

    /// The template found last: a loop that runs one query shape finds it
    /// again by comparing keys (the format is usually the very same String,
    /// compared in one step) instead of hashing the format text.
    private var last: (key: Key, template: QueryTemplate)?

    mutating func template(for key: Key) -> QueryTemplate? {
        if let last, last.key == key { return last.template }
        guard let found = templates[key] else { return nil }
        last = (key, found)
        return found
    }
    func isRefused(_ key: Key) -> Bool { refused.contains(key) }

    mutating func store(_ template: QueryTemplate?, for key: Key) {
        if templates.count + refused.count >= Self.capacity {
            templates.removeAll(keepingCapacity: true)
            refused.removeAll(keepingCapacity: true)
            last = nil
        }
        if let template { templates[key] = template } else { refused.insert(key) }
    }

    /// The argument kinds of a call packed in one integer (4 bits each, the
    /// count in the top 4: no array to allocate per call), or nil when an
    /// argument is of a kind templates do not take or there are more than 15.
    static func kinds(of values: [QueryValue]) -> UInt64? {
        guard values.count <= 15 else { return nil }
        var kinds = UInt64(values.count) << 60
        for (position, value) in values.enumerated() {
            let kind: UInt64
            switch value {
            case .bool: kind = 1
            case .int: kind = 2
            case .double: kind = 3
            case .string: kind = 4
            case .data: kind = 5
            case .date: kind = 6
            case .uuid: kind = 7
            case .objectId: kind = 8
            default: return nil
            }
            kinds |= kind << (4 * UInt64(position))
        }
        return kinds
    }

    /// A sentinel of the same kind as `value`, distinct per argument index (see above).
    static func sentinel(like value: QueryValue, index: Int) -> QueryValue {
        switch value {
        case .bool(let b): .bool(!b)
        case .int: .int(6_700_417_000_003 + Int64(index) * 7919)
        case .double: .double(123_456.789_25 + Double(index))
        // Longer than the argument, always: BEGINSWITH and ENDSWITH bind the length.
        case .string(let s): .string("\u{1}VKÉ[\\*?\(index)" + String(repeating: "Q", count: s.unicodeScalars.count + 1))
        case .data(let d): .data(Data(repeating: 0xF1, count: d.count + 1) + [UInt8(truncatingIfNeeded: index)])
        case .date: .date(Date(timeIntervalSinceReferenceDate: 987_654.321 + Double(index)))
        case .uuid: .uuid(UUID())
        case .objectId: .objectId(ObjectId.generate())
        default: value
        }
    }

    /// How a value is bound when the compiler binds it unchanged.
    static func binding(of value: QueryValue) -> DatabaseValue? {
        switch value {
        case .bool(let b): .integer(b ? 1 : 0)
        case .int(let i): .integer(i)
        case .double(let d): .real(d)
        case .string(let s): .text(s)
        case .data(let d): .blob(d)
        case .date(let d): d._vaultEncoded
        case .uuid(let u): u._vaultEncoded
        case .objectId(let o): o._vaultEncoded
        default: nil
        }
    }

    /// Matches the values of two parses (real and sentinel arguments) to the
    /// arguments they came from; nil when one differs in a way no argument explains.
    static func slots<T: Equatable>(_ first: [T], _ second: [T], real: [T], sentinels: [T]) -> [Int?]? {
        guard first.count == second.count else { return nil }
        var slots: [Int?] = []
        slots.reserveCapacity(first.count)
        for (a, b) in zip(first, second) {
            if a == b { slots.append(nil); continue }
            let candidates = real.indices.filter { real[$0] == a && sentinels[$0] == b }
            guard candidates.count == 1 else { return nil }
            slots.append(candidates[0])
        }
        return slots
    }
}

// MARK: - Values of a query tree, in traversal order

extension QueryPredicate {
    /// Every constant of the tree, depth first, left to right.
    var values: [QueryValue] {
        var result: [QueryValue] = []
        var copy = self
        copy.visitValues { result.append($0); return $0 }
        return result
    }

    /// The tree with its constants replaced, in the order of ``values``.
    func replacingValues(_ replacements: [QueryValue]) -> QueryPredicate {
        var copy = self
        var index = 0
        copy.visitValues { _ in
            defer { index += 1 }
            return replacements[index]
        }
        return copy
    }

    fileprivate mutating func visitValues(_ body: (QueryValue) -> QueryValue) {
        switch self {
        case .constant: break
        case .and(var a, var b):
            a.visitValues(body); b.visitValues(body)
            self = .and(a, b)
        case .or(var a, var b):
            a.visitValues(body); b.visitValues(body)
            self = .or(a, b)
        case .not(var inner):
            inner.visitValues(body)
            self = .not(inner)
        case .comparison(var comparison):
            comparison.lhs.visitValues(body)
            comparison.rhs.visitValues(body)
            self = .comparison(comparison)
        }
    }
}

extension QueryOperand {
    fileprivate mutating func visitValues(_ body: (QueryValue) -> QueryValue) {
        switch self {
        case .keyPath: break
        case .value(let value, let offset): self = .value(body(value), offset: offset)
        case .list(var items, let offset):
            for index in items.indices { items[index].visitValues(body) }
            self = .list(items, offset: offset)
        case .subqueryCount(let collection, let variable, var predicate, let offset):
            predicate.visitValues(body)
            self = .subqueryCount(collection: collection, variable: variable, predicate: predicate, offset: offset)
        }
    }
}
