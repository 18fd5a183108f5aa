import Foundation
import VaultCore

/// SQL text with the values bound to its `?` placeholders, in order.
struct SQLFragment {
    var sql: String
    var bindings: [DatabaseValue] = []

    init(_ sql: String, _ bindings: [DatabaseValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    // The left operand is consumed, so a chain `a + b + c` appends into one
    // buffer instead of copying at every step.
    static func + (a: consuming SQLFragment, b: SQLFragment) -> SQLFragment {
        var result = a
        result.sql += b.sql
        if !b.bindings.isEmpty { result.bindings += b.bindings }
        return result
    }
    static func + (a: consuming SQLFragment, b: String) -> SQLFragment {
        var result = a
        result.sql += b
        return result
    }
    static func + (a: consuming String, b: SQLFragment) -> SQLFragment {
        var sql = a
        sql += b.sql
        return SQLFragment(sql, b.bindings)
    }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.bindings))
    }
}

/// What a compiled expression holds.
enum QueryValueType: Equatable {
    case scalar(PropertyType)
    /// An object's identity (its row id), of this class.
    case link(String)

    var description: String {
        switch self {
        case .scalar(let type): type.rawValue
        case .link(let className): "a link to \(className)"
        }
    }

    var isNumeric: Bool {
        if case .scalar(let type) = self { return [.int, .float, .double, .decimal].contains(type) }
        return false
    }
}

/// Compiles a ``QueryPredicate`` into an SQL boolean expression over the
/// queried class's table (alias `t0`), with every value bound.
///
/// HOW KEY PATHS BECOME SQL
///
/// - A column of the class: `t0."column"`.
/// - Through to-one links and embedded objects: a correlated scalar subquery
///   joining the linked tables (`(SELECT a1."city" FROM "Address" a1 WHERE
///   a1."_vk_id" = t0."address")`); a nil link anywhere gives NULL.
/// - Through a list, set, map or LinkingObjects (to-many): the comparison is
///   quantified: `ANY` (the default) is `EXISTS (SELECT 1 FROM <joins> WHERE
///   <correlation> AND <comparison>)`, `NONE` is `NOT EXISTS (…)`, and `ALL` is
///   `NOT EXISTS (… AND NOT <comparison>)`.
/// - `@count`, `@min`, `@max`, `@sum`, `@avg` and `SUBQUERY(…).@count` are
///   scalar subqueries over the same joins.
///
/// Comparisons never yield NULL where it would change the answer: equality
/// with nil is `IS NULL`, `!=` is `IS NOT`, and `NOT` treats an unknown as false
/// (`NOT coalesce(x, 0)`), which gives Realm's semantics (`nil != 'a'` is true,
/// `nil < 3` is false).
struct QueryCompiler {
    /// Finds the schema of a linked class by name.
    let lookup: (String) -> ObjectSchema?
    private var aliasCounter = 0

    init(lookup: @escaping (String) -> ObjectSchema?) {
        self.lookup = lookup
    }

    /// What key paths start from: the queried class's row, and `$variables`.
    struct Scope {
        enum Base {
            case row(ObjectSchema, alias: String)
            case value(SQLFragment, type: QueryValueType, name: String)
        }
        var root: Base
        var variables: [String: Base] = [:]
    }

    mutating func nextAlias() -> String {
        aliasCounter += 1
        return "a\(aliasCounter)"
    }

    // MARK: Predicates

    mutating func compile(_ predicate: QueryPredicate, in scope: Scope) throws(QueryError) -> SQLFragment {
        switch predicate {
        case .constant(let value):
            return SQLFragment(value ? "1" : "0")
        case .and(let a, let b):
            return "(" + (try compile(a, in: scope)) + " AND " + (try compile(b, in: scope)) + ")"
        case .or(let a, let b):
            return "(" + (try compile(a, in: scope)) + " OR " + (try compile(b, in: scope)) + ")"
        case .not(let inner):
            return "(NOT coalesce(" + (try compile(inner, in: scope)) + ", 0))"
        case .comparison(let comparison):
            return try compile(comparison, in: scope)
        }
    }

    private enum CompiledOperand {
        case path(ResolvedPath)
        case values([QueryValue], isList: Bool, offset: Int?)
    }

    private mutating func operand(_ operand: QueryOperand, in scope: Scope) throws(QueryError) -> CompiledOperand {
        switch operand {
        case .keyPath(let path):
            return .path(try resolve(path, in: scope))
        case .subqueryCount(let collection, let variable, let predicate, let offset):
            return .path(try subqueryCount(collection, variable: variable, predicate: predicate, offset: offset, in: scope))
        case .value(let value, let offset):
            return .values([value], isList: false, offset: offset)
        case .list(let items, let offset):
            var values: [QueryValue] = []
            for item in items {
                switch item {
                case .value(let value, _): values.append(value)
                case .list(let nested, _):
                    // An array argument inside a literal list: flatten it.
                    for case .value(let value, _) in nested { values.append(value) }
                default: throw QueryError("a list may only hold values and arguments, not key paths", at: item.offset ?? offset)
                }
            }
            return .values(values, isList: true, offset: offset)
        }
    }

    private static func isPath(_ operand: QueryOperand) -> Bool {
        switch operand {
        case .keyPath, .subqueryCount: true
        default: false
        }
    }

    private mutating func compile(_ comparison: Comparison, in scope: Scope) throws(QueryError) -> SQLFragment {
        var comparison = comparison
        if !Self.isPath(comparison.lhs) && Self.isPath(comparison.rhs) {
            // `%@ IN tags` is `ANY tags == %@`; `3 < age` is `age > 3`.
            switch comparison.op {
            case .in:
                comparison = Comparison(lhs: comparison.rhs, op: .equal, rhs: comparison.lhs, options: comparison.options,
                                        quantifier: comparison.quantifier ?? .any, offset: comparison.offset)
            case .less, .lessOrEqual, .greater, .greaterOrEqual, .equal, .notEqual:
                comparison = Comparison(lhs: comparison.rhs, op: comparison.op.mirrored ?? comparison.op, rhs: comparison.lhs,
                                        options: comparison.options, quantifier: comparison.quantifier, offset: comparison.offset)
            default:
                throw QueryError("\(comparison.op.rawValue) needs the key path on its left", at: comparison.offset)
            }
        }
        guard case .path(let left) = try operand(comparison.lhs, in: scope) else {
            throw QueryError("a comparison needs a key path on at least one side", at: comparison.lhs.offset ?? comparison.offset)
        }
        let right = try operand(comparison.rhs, in: scope)
        let op = comparison.op
        let condition: SQLFragment
        switch right {
        case .values(let values, let isList, let offset):
            if op == .in || op == .between {
                guard isList else { throw QueryError("\(op.rawValue) needs a list: {a, b, …} or an array argument", at: offset) }
                if op == .between && values.count != 2 {
                    throw QueryError("BETWEEN needs a list of exactly two values {low, high}, not \(values.count)", at: offset)
                }
            } else if isList {
                throw QueryError("a list can only follow IN or BETWEEN, not \(op.rawValue)", at: offset)
            }
            condition = try valueCondition(left, op, values, options: comparison.options, offset: offset ?? comparison.offset)
        case .path(let other):
            condition = try pathCondition(left, op, other, options: comparison.options, offset: comparison.offset)
        }
        let toMany = [left, { if case .path(let p) = right { p } else { nil } }()].compactMap { $0 }.filter(\.isToMany)
        guard !toMany.isEmpty else {
            if let quantifier = comparison.quantifier {
                throw QueryError("\(quantifier.rawValue) needs a key path through a List, MutableSet, Map or LinkingObjects; \(left.name) is a single value", at: comparison.lhs.offset)
            }
            return condition
        }
        if toMany.count == 1, let first = toMany[0].joins.first {
            // One chain: `outer IN (SELECT inner FROM chain WHERE cond)`. SQLite runs an
            // uncorrelated IN subquery once, where EXISTS would run per row.
            var chain = toMany[0].joins
            let extra = first.extra
            chain[0].extra = nil
            let (from, _) = Self.fromClause([chain])
            // NULLs never enter the list (NOT IN with a NULL is unknown), and a NULL
            // outer (a nil link on the way) has no elements: NONE and ALL hold.
            let restriction = " WHERE \(first.inner) IS NOT NULL AND " + (extra.map { $0 + " AND " } ?? SQLFragment(""))
            let select = "(SELECT \(first.inner)" + from + restriction
            switch comparison.quantifier ?? .any {
            case .any: return "(" + first.outer + " IN " + select + condition + "))"
            case .none: return "coalesce(" + first.outer + " NOT IN " + select + condition + "), 1)"
            case .all: return "coalesce(" + first.outer + " NOT IN " + select + "NOT coalesce(" + condition + ", 0)), 1)"
            }
        }
        let (from, correlation) = Self.fromClause(toMany.map(\.joins))
        switch comparison.quantifier ?? .any {
        case .any:
            return "EXISTS (SELECT 1" + from + " WHERE " + correlation + " AND " + condition + ")"
        case .none:
            return "NOT EXISTS (SELECT 1" + from + " WHERE " + correlation + " AND " + condition + ")"
        case .all:
            return "NOT EXISTS (SELECT 1" + from + " WHERE " + correlation + " AND NOT coalesce(" + condition + ", 0))"
        }
    }

    /// ` FROM t a JOIN u b ON …` and the correlation conditions of each chain's first table.
    static func fromClause(_ chains: [[Join]]) -> (SQLFragment, SQLFragment) {
        var from: [SQLFragment] = []
        var correlations: [SQLFragment] = []
        for chain in chains {
            guard let first = chain.first else { continue }
            var part = SQLFragment("\(first.table) \(first.alias)")
            for join in chain.dropFirst() { part = part + " JOIN \(join.table) \(join.alias) ON " + join.on }
            from.append(part)
            correlations.append(first.on)
        }
        return (" FROM " + SQLFragment.joined(from, separator: ", "), SQLFragment.joined(correlations, separator: " AND "))
    }

    // MARK: Conditions

    private func checkOptions(_ options: ComparisonOptions, _ type: QueryValueType, _ name: String, _ offset: Int?) throws(QueryError) {
        // A mixed value takes options: they apply when it holds a string.
        guard !options.isEmpty, type != .scalar(.string), type != .scalar(.mixed) else { return }
        throw QueryError("[c] and [d] apply to strings; \(name) is \(Self.describe(type))", at: offset)
    }

    private static func describe(_ type: QueryValueType) -> String {
        switch type {
        case .scalar(let t): ["int", "objectId", "uuid"].contains(t.rawValue) ? "an \(t.rawValue)" : "a \(t.rawValue)"
        case .link(let className): "a link to \(className)"
        }
    }

    private static func fold(_ expression: SQLFragment, _ options: ComparisonOptions) -> SQLFragment {
        options.isEmpty ? expression : "vk_fold(" + expression + ", \(options.rawValue))"
    }

    private static func collated(_ expression: SQLFragment, _ type: QueryValueType) -> SQLFragment {
        type == .scalar(.decimal) ? "(" + expression + " COLLATE vk_decimal)" : expression
    }

    private func valueCondition(_ path: ResolvedPath, _ op: ComparisonOperator, _ values: [QueryValue], options: ComparisonOptions, offset: Int?) throws(QueryError) -> SQLFragment {
        let type = path.type
        try checkOptions(options, type, path.name, offset)
        if let access = path.mixed {
            return try mixedCondition(path, access, op, values, options: options, offset: offset)
        }
        if op.isStringOperator {
            guard type == .scalar(.string) || type == .scalar(.data) else {
                throw QueryError("\(op.rawValue) applies to strings and Data; \(path.name) is \(Self.describe(type))", at: offset)
            }
        }
        if case .link = type, ![.equal, .notEqual, .in].contains(op) {
            throw QueryError("links can only be compared with ==, != or IN; \(path.name) is \(Self.describe(type))", at: offset)
        }
        if type == .scalar(.bool) && (op.isOrdering || op == .between) {
            throw QueryError("\(op.rawValue) does not apply to Bool (\(path.name))", at: offset)
        }
        var encoded: [DatabaseValue] = []
        for value in values { encoded.append(try encode(value, as: type, name: path.name, offset: offset)) }
        if !options.isEmpty {
            encoded = encoded.map { if case .text(let text) = $0 { .text(QueryFolding.fold(text, options)) } else { $0 } }
        }
        let left = Self.collated(Self.fold(path.expression, options), type)
        let raw = path.expression
        if let condition = ColumnCondition.lowering(op, encoded) {
            return condition.sql(value: left, raw: raw)
        }
        // The string operators: they only ever run as SQL.
        guard let value = encoded.first, !value.isNull else { return SQLFragment("0") }
        let length: Int
        switch value {
        case .text(let text): length = text.unicodeScalars.count
        case .blob(let data): length = data.count
        default: length = 0
        }
        if length == 0 && op != .like { return "(" + raw + " IS NOT NULL)" }
        if !options.isEmpty && op != .like {
            // Folded matching in one call per row, without a folded copy of ASCII text.
            let kind = op == .contains ? 1 : (op == .beginsWith ? 2 : 3)
            return "(vk_match(\(kind), " + raw + ", ?, \(options.rawValue)) = 1)" + SQLFragment("", [value])
        }
        switch op {
        // Even the needle's length is bound: nothing derived from a value enters the SQL text.
        case .beginsWith: return "(substr(" + left + ", 1, ?) = ?)" + SQLFragment("", [.integer(Int64(length)), value])
        case .endsWith:
            // Placeholders and bindings in text order (`left` may carry bindings of its own).
            return "(length(" + left + SQLFragment(") >= ? AND substr(", [.integer(Int64(length))]) + left + SQLFragment(", ?) = ?)", [.integer(Int64(-length)), value])
        case .contains: return "(instr(" + left + ", ?) > 0)" + SQLFragment("", [value])
        default:
            guard case .text(let pattern) = value else { throw QueryError("LIKE applies to strings; \(path.name) is Data", at: offset) }
            let glob = Self.globPattern(fromLike: pattern)
            // SQLite refuses longer patterns when the query runs (SQLITE_LIMIT_LIKE_PATTERN_LENGTH): refuse them here.
            guard glob.utf8.count <= Self.maximumPatternBytes else {
                throw QueryError("the LIKE pattern has \(glob.utf8.count) bytes; SQLite accepts at most \(Self.maximumPatternBytes)", at: offset)
            }
            return "(" + left + " GLOB ?)" + SQLFragment("", [.text(glob)])
        }
    }

    /// SQLite's default SQLITE_LIMIT_LIKE_PATTERN_LENGTH, which applies to GLOB too.
    static let maximumPatternBytes = 50_000

    /// Realm's LIKE (`*` any run, `?` one character, `\` escapes) as an SQLite GLOB pattern.
    static func globPattern(fromLike pattern: String) -> String {
        var result = ""
        var escaped = false
        for character in pattern {
            if escaped {
                result += ["*", "?", "["].contains(character) ? "[\(character)]" : String(character)
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "[": result += "[[]"
            default: result.append(character)
            }
        }
        if escaped { result += "\\" }
        return result
    }

    private func pathCondition(_ left: ResolvedPath, _ op: ComparisonOperator, _ right: ResolvedPath, options: ComparisonOptions, offset: Int?) throws(QueryError) -> SQLFragment {
        if left.mixed != nil { return try mixedPathCondition(left, op, right, options: options, offset: offset) }
        if right.mixed != nil {
            let flipped: [ComparisonOperator: ComparisonOperator] = [.less: .greater, .lessOrEqual: .greaterOrEqual, .greater: .less, .greaterOrEqual: .lessOrEqual]
            guard [.equal, .notEqual].contains(op) || op.isOrdering else {
                throw QueryError("\(op.rawValue) needs the mixed value \(right.name) on its left", at: offset)
            }
            return try mixedPathCondition(right, flipped[op] ?? op, left, options: options, offset: offset)
        }
        let compatible = left.type == right.type || (left.type.isNumeric && right.type.isNumeric)
        guard compatible else {
            throw QueryError("type mismatch: \(left.name) is \(Self.describe(left.type)) and \(right.name) is \(Self.describe(right.type))", at: offset)
        }
        try checkOptions(options, left.type, left.name, offset)
        if op == .in || op == .between {
            throw QueryError("\(op.rawValue) needs a list of values on its right, not the key path \(right.name)", at: offset)
        }
        if op.isStringOperator && !(left.type == .scalar(.string) || left.type == .scalar(.data)) {
            throw QueryError("\(op.rawValue) applies to strings and Data; \(left.name) is \(Self.describe(left.type))", at: offset)
        }
        if case .link = left.type, ![.equal, .notEqual].contains(op) {
            throw QueryError("links can only be compared with == or !=", at: offset)
        }
        let type: QueryValueType = (left.type == .scalar(.decimal) || right.type == .scalar(.decimal)) ? .scalar(.decimal) : left.type
        let l = Self.collated(Self.fold(left.expression, options), type)
        let r = Self.fold(right.expression, options)
        switch op {
        case .equal: return "(" + l + " IS " + r + ")"
        case .notEqual: return "(" + l + " IS NOT " + r + ")"
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return "(" + l + " \(op.rawValue) " + r + ")"
        case .beginsWith: return "(substr(" + l + ", 1, length(" + r + ")) = " + r + ")"
        case .endsWith: return "(length(" + l + ") >= length(" + r + ") AND (length(" + r + ") = 0 OR substr(" + l + ", -length(" + r + ")) = " + r + "))"
        case .contains: return "(instr(" + l + ", " + r + ") > 0)"
        case .like: throw QueryError("LIKE needs a pattern value on its right, not the key path \(right.name)", at: offset)
        case .in, .between: throw QueryError("\(op.rawValue) needs a list", at: offset)
        }
    }

    /// The column value of `value` for comparison with an expression of `type`.
    func encode(_ value: QueryValue, as type: QueryValueType, name: String, offset: Int?) throws(QueryError) -> DatabaseValue {
        func mismatch() -> QueryError {
            QueryError("type mismatch: \(name) is \(Self.describe(type)); it cannot be compared with \(value.kindName)", at: offset)
        }
        if value == .null { return .null }
        switch type {
        case .link(let className):
            guard case .object(let reference) = value else { throw mismatch() }
            let object = reference.object
            guard let manager = object.manager else {
                throw QueryError("the \(Swift.type(of: object)) compared with \(name) is not managed by a vault (add it first)", at: offset)
            }
            guard manager.schema.className == className else { throw mismatch() }
            return .integer(manager.rowID)
        case .scalar(let scalar):
            switch (scalar, value) {
            case (.bool, .bool(let b)): return .integer(b ? 1 : 0)
            case (.bool, .int(let i)) where i == 0 || i == 1: return .integer(i)
            case (.int, .int(let i)): return .integer(i)
            case (.int, .double(let d)): return d.rounded() == d && abs(d) < 9.2e18 ? .integer(Int64(d)) : .real(d)
            case (.int, .decimal(let d)): return .real(NSDecimalNumber(decimal: d).doubleValue)
            case (.float, .int(let i)): return .real(Double(Float(i)))
            case (.float, .double(let d)): return .real(Double(Float(d)))
            case (.float, .decimal(let d)): return .real(Double(Float(NSDecimalNumber(decimal: d).doubleValue)))
            case (.double, .int(let i)): return .real(Double(i))
            case (.double, .double(let d)): return .real(d)
            case (.double, .decimal(let d)): return .real(NSDecimalNumber(decimal: d).doubleValue)
            case (.decimal, .decimal(let d)): return .text(QuerySQLFunctions.canonical(d))
            case (.decimal, .int(let i)): return .text(QuerySQLFunctions.canonical(Decimal(i)))
            case (.decimal, .double(let d)): return .text(QuerySQLFunctions.canonical(Decimal(d)))
            case (.string, .string(let s)): return .text(s)
            case (.data, .data(let d)): return .blob(d)
            case (.data, .string(let s)): return .blob(Data(s.utf8))
            case (.date, .date(let d)): return d._vaultEncoded
            case (.uuid, .uuid(let u)): return u._vaultEncoded
            case (.objectId, .objectId(let o)): return o._vaultEncoded
            default: throw mismatch()
            }
        }
    }
}
