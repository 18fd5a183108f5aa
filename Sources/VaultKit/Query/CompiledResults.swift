import Foundation
import VaultCore

/// The SQL of a `Results`, compiled once when the `Results` is made (so a bad
/// query fails at `filter`, not at the first read).
///
/// Shapes (the queried class's table is `t0`):
///
///     ids:    SELECT t0."_vk_id" <from> WHERE <base> AND <filters> ORDER BY <sort>, <default order>
///     count:  SELECT count(*) <from> WHERE …
///     page:   SELECT t0."_vk_id", t0.<columns…> <from> WHERE … ORDER BY … LIMIT ? OFFSET ?
///
/// The default order is insertion (row id) order for a class, list order for
/// a List. With `distinct(by:)` the ids come from a window function
/// (`row_number() OVER (PARTITION BY <keys> ORDER BY <order>) = 1`), and pages
/// are read by id.
struct CompiledResults {
    /// The statements; a query template's re-bindings all share its one instance
    /// (so its lazily built SQL is built once, and being the same String is
    /// found in the statement cache without comparing text).
    private let queries: CompiledQueries
    /// The values bound to the filters' placeholders in every statement, when
    /// they replace the compiled ones (a template's re-binding), else nil.
    private let reboundValues: [DatabaseValue]?

    init(reader: ObjectReader, schema: ObjectSchema, definition: ResultsDefinition) throws(QueryError) {
        queries = try CompiledQueries(reader: reader, schema: schema, definition: definition)
        reboundValues = nil
    }

    private init(queries: CompiledQueries, reboundValues: [DatabaseValue]) {
        self.queries = queries
        self.reboundValues = reboundValues
    }

    private func rebound(_ fragment: SQLFragment) -> SQLFragment {
        guard let reboundValues else { return fragment }
        return SQLFragment(fragment.sql, reboundValues)
    }

    /// The ids in order.
    var idQuery: SQLFragment { rebound(queries.idQuery) }
    /// `SELECT count(*)`; nil with distinct (the ids are counted instead).
    var countQuery: SQLFragment? { queries.countQuery.map(rebound) }
    /// `SELECT <id and columns> … LIMIT ? OFFSET ?` (nil with distinct).
    var pageQuery: SQLFragment? { queries.pageQuery.map(rebound) }
    /// The same in reverse order (for `last`).
    var reversePageQuery: SQLFragment? { queries.reversePageQuery.map(rebound) }
    /// One pass over a class's table in row-id order (see ``CompiledQueries/keysetQuery``).
    var keysetQuery: SQLFragment? { queries.keysetQuery.map(rebound) }

    /// Whether every query's bindings are the filters' (a class's table, no
    /// sort, no distinct): then ``rebinding(_:)`` may swap them (QueryTemplates).
    var isTemplatable: Bool { queries.isTemplatable }

    /// The same queries with other values bound to the filters' placeholders
    /// (templatable results only): no SQL is built, nothing is copied but the values.
    func rebinding(_ values: [DatabaseValue]) -> CompiledResults {
        CompiledResults(queries: queries, reboundValues: values)
    }

    /// `SELECT <aggregate>(property)` over the results' objects.
    func aggregateQuery(_ step: KeyPathStep, _ keyPath: String, reader: ObjectReader, schema: ObjectSchema) throws(QueryError) -> SQLFragment {
        try queries.aggregateQuery(step, keyPath, reader: reader, schema: schema, fromWhere: rebound(queries.fromWhere))
    }
}

/// The statements of one compiled `Results`, with its filters' values bound.
final class CompiledQueries {
    let idQuery: SQLFragment
    let countQuery: SQLFragment?
    /// `<from> WHERE <base and filters>`, kept for pages and aggregates.
    let fromWhere: SQLFragment
    private let isDistinct: Bool
    private let columns: String
    private let forwardOrder: SQLFragment
    private let orderTerms: [(SQLFragment, Bool)]
    private let defaultOrder: [String]
    private lazy var reverseOrder: SQLFragment = Self.orderClause(orderTerms, defaultOrder, reversed: true)

    /// `SELECT <id and columns> … LIMIT ? OFFSET ?` (built on first use; nil with distinct).
    private(set) lazy var pageQuery: SQLFragment? = (isDistinct ? nil : "SELECT \(columns)" + fromWhere + forwardOrder + " LIMIT ? OFFSET ?")
    /// One pass over a class's table in row-id order, a batch at a time:
    /// `SELECT <id and columns> … WHERE <filters> AND id >= ?1 AND id <= ?2
    /// ORDER BY id LIMIT ?3` (nil when the results are sorted, distinct or a
    /// collection's: those iterate by row ids). Iteration reads each matching
    /// row once, from the filter's own statement.
    private(set) lazy var keysetQuery: SQLFragment? = (isKeysetIterable
            ? "SELECT \(columns)" + fromWhere + (hasWhere ? " AND " : " WHERE ") + "t0.\"_vk_id\" >= ? AND t0.\"_vk_id\" <= ? ORDER BY t0.\"_vk_id\" LIMIT ?"
            : nil)
    private let isKeysetIterable: Bool
    private let hasWhere: Bool
    /// The same in reverse order (for `last`).
    private(set) lazy var reversePageQuery: SQLFragment? = (isDistinct ? nil : "SELECT \(columns)" + fromWhere + reverseOrder + " LIMIT ? OFFSET ?")

    init(reader: ObjectReader, schema: ObjectSchema, definition: ResultsDefinition) throws(QueryError) {
        var compiler = QueryCompiler(lookup: reader.schema(named:))
        let scope = QueryCompiler.Scope(root: .row(schema, alias: "t0"))
        var from: SQLFragment
        var conditions: [SQLFragment] = []
        var defaultOrder: [String]
        switch definition.base {
        case .table:
            from = SQLFragment(" FROM \(schema.tableName) t0")
            defaultOrder = ["t0.\"_vk_id\" ASC"]
        case .collection(let binding):
            from = SQLFragment(" FROM \(binding.table) b JOIN \(schema.tableName) t0 ON t0.\"_vk_id\" = b.\"value\"")
            conditions.append(SQLFragment("b.\"_vk_owner\" = ?", [.integer(binding.ownerRowID)]))
            switch binding.property.collectionKind {
            case .list: defaultOrder = ["b.\"_vk_position\" ASC", "b.rowid ASC"]
            case .map: defaultOrder = ["b.\"key\" ASC"]   // a map's order: its keys'
            default: defaultOrder = ["b.rowid ASC"]
            }
        case .linkingObjects(let binding):
            from = SQLFragment(" FROM \(schema.tableName) t0")
            guard let originName = binding.property.originProperty, let origin = schema[originName] else {
                throw QueryError("the LinkingObjects origin property is not in \(schema.className)")
            }
            if origin.isColumn {
                conditions.append(SQLFragment("t0.\(origin.columnSQL) = ?", [.integer(binding.ownerRowID)]))
            } else {
                conditions.append(SQLFragment("t0.\"_vk_id\" IN (SELECT \"_vk_owner\" FROM \(schema.collectionTableName(for: origin)) WHERE \"value\" = ?)", [.integer(binding.ownerRowID)]))
            }
            defaultOrder = ["t0.\"_vk_id\" ASC"]
        }
        for predicate in definition.predicates {
            conditions.append(try compiler.compile(predicate, in: scope))
        }
        let whereClause = conditions.isEmpty ? SQLFragment("") : " WHERE " + SQLFragment.joined(conditions, separator: " AND ")
        var orderTerms: [(SQLFragment, Bool)] = []
        for (keyPath, ascending) in definition.sort {
            let resolved = try compiler.resolveSingleValue(keyPath, in: scope, purpose: "sort")
            var expression = resolved.type == .scalar(.decimal) ? resolved.expression + " COLLATE vk_decimal" : resolved.expression
            // Mixed values sort in Realm's order: by type rank, numbers by value across their types.
            if resolved.type == .scalar(.mixed) { expression = "vk_mixed_sort(" + resolved.expression + ")" }
            orderTerms.append((expression, ascending))
        }
        let body = from + whereClause
        fromWhere = body
        hasWhere = !conditions.isEmpty
        if case .table = definition.base, definition.sort.isEmpty, definition.distinct.isEmpty { isKeysetIterable = true } else { isKeysetIterable = false }
        columns = schema.aliasedColumnList
        self.orderTerms = orderTerms
        self.defaultOrder = defaultOrder
        forwardOrder = Self.orderClause(orderTerms, defaultOrder, reversed: false)
        if definition.distinct.isEmpty {
            isDistinct = false
            idQuery = "SELECT t0.\"_vk_id\"" + body + forwardOrder
            countQuery = "SELECT count(*)" + body
        } else {
            isDistinct = true
            var keys: [SQLFragment] = []
            for keyPath in definition.distinct {
                let resolved = try compiler.resolveSingleValue(keyPath, in: scope, purpose: "distinct")
                keys.append(resolved.type == .scalar(.decimal) ? resolved.expression + " COLLATE vk_decimal" : resolved.expression)
            }
            // Rank each object within its group in the results' order; keep the first of each group.
            let ranked = "SELECT t0.\"_vk_id\" AS vk_id, row_number() OVER (PARTITION BY " + SQLFragment.joined(keys, separator: ", ") + forwardOrder
                + ") AS vk_rank, row_number() OVER (" + forwardOrder + ") AS vk_order" + body
            idQuery = "SELECT vk_id FROM (" + ranked + ") WHERE vk_rank = 1 ORDER BY vk_order"
            countQuery = nil
        }
    }

    /// Whether every query's bindings are the filters' (see ``CompiledResults/isTemplatable``).
    var isTemplatable: Bool { isKeysetIterable && countQuery?.bindings == idQuery.bindings && fromWhere.bindings == idQuery.bindings }

    /// ` ORDER BY <sort terms>, <default order>`, or the reverse.
    private static func orderClause(_ terms: [(SQLFragment, Bool)], _ defaultOrder: [String], reversed: Bool) -> SQLFragment {
        if terms.isEmpty && !reversed { return SQLFragment(" ORDER BY " + defaultOrder.joined(separator: ", ")) }
        var parts = terms.map { $0.0 + (($0.1 != reversed) ? " ASC" : " DESC") }
        parts += defaultOrder.map { term in
            SQLFragment(reversed ? (term.hasSuffix(" ASC") ? String(term.dropLast(4)) + " DESC" : term) : term)
        }
        return " ORDER BY " + SQLFragment.joined(parts, separator: ", ")
    }

    /// `SELECT <aggregate>(property)` over the results' objects.
    func aggregateQuery(_ step: KeyPathStep, _ keyPath: String, reader: ObjectReader, schema: ObjectSchema, fromWhere: SQLFragment) throws(QueryError) -> SQLFragment {
        var compiler = QueryCompiler(lookup: reader.schema(named:))
        let resolved = try compiler.resolveSingleValue(keyPath, in: QueryCompiler.Scope(root: .row(schema, alias: "t0")), purpose: step.text)
        guard case .scalar(let type) = resolved.type else { throw QueryError("\(step.text) needs a value property") }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal, .mixed]
        let allowed = step == .min || step == .max ? numeric.union([.date]) : numeric
        guard allowed.contains(type) else {
            throw QueryError("\(step.text) applies to numeric\(step == .min || step == .max ? " and date" : "") properties; \(resolved.name) is a \(type.rawValue)")
        }
        let value = resolved.expression
        let function: SQLFragment
        switch (step, type) {
        case (.sum, .mixed): function = "vk_mixed_sum(" + value + ")"
        case (.avg, .mixed): function = "vk_mixed_avg(" + value + ")"
        case (.min, .mixed): function = "vk_mixed_min(" + value + ")"
        case (.max, .mixed): function = "vk_mixed_max(" + value + ")"
        case (.sum, .decimal): function = "vk_decimal_sum(" + value + ")"
        case (.avg, .decimal): function = "vk_decimal_avg(" + value + ")"
        case (.sum, _): function = "sum(" + value + ")"
        case (.avg, _): function = "avg(" + value + ")"
        case (.min, .decimal): function = "min(" + value + " COLLATE vk_decimal)"
        case (.max, .decimal): function = "max(" + value + " COLLATE vk_decimal)"
        case (.min, _): function = "min(" + value + ")"
        default: function = "max(" + value + ")"
        }
        if isDistinct {
            return "SELECT " + function + " FROM \(schema.tableName) t0 WHERE t0.\"_vk_id\" IN (" + idQuery + ")"
        }
        return "SELECT " + function + fromWhere
    }
}
