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
    let idQuery: SQLFragment
    let countQuery: SQLFragment?
    let pageQuery: SQLFragment?
    let reversePageQuery: SQLFragment?
    /// `<from> WHERE <base and filters>` and the ordering terms, kept for aggregates.
    private let fromWhere: SQLFragment
    private let isDistinct: Bool

    init(vault: Vault, schema: ObjectSchema, definition: ResultsDefinition) throws(QueryError) {
        var compiler = QueryCompiler(lookup: { [weak vault] name in vault?.schema(named: name) })
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
            defaultOrder = binding.property.collectionKind == .list ? ["b.\"_vk_position\" ASC", "b.rowid ASC"] : ["b.rowid ASC"]
        case .linkingObjects(let binding):
            from = SQLFragment(" FROM \(schema.tableName) t0")
            guard let originName = binding.property.originProperty, let origin = schema[originName] else {
                throw QueryError("the LinkingObjects origin property is not in \(schema.className)")
            }
            if origin.isColumn {
                conditions.append(SQLFragment("t0.\(quoteIdentifier(origin.storedName)) = ?", [.integer(binding.ownerRowID)]))
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
            let expression = resolved.type == .scalar(.decimal) ? resolved.expression + " COLLATE vk_decimal" : resolved.expression
            orderTerms.append((expression, ascending))
        }
        func orderClause(reversed: Bool) -> SQLFragment {
            var terms = orderTerms.map { $0.0 + (($0.1 != reversed) ? " ASC" : " DESC") }
            terms += defaultOrder.map { term in
                SQLFragment(reversed ? (term.hasSuffix(" ASC") ? String(term.dropLast(4)) + " DESC" : term) : term)
            }
            return " ORDER BY " + SQLFragment.joined(terms, separator: ", ")
        }
        let body = from + whereClause
        fromWhere = body
        let columns = (["t0.\"_vk_id\""] + schema.columnIndexes.map { "t0.\(quoteIdentifier(schema.properties[$0].storedName))" }).joined(separator: ", ")
        if definition.distinct.isEmpty {
            isDistinct = false
            idQuery = "SELECT t0.\"_vk_id\"" + body + orderClause(reversed: false)
            countQuery = "SELECT count(*)" + body
            pageQuery = "SELECT \(columns)" + body + orderClause(reversed: false) + " LIMIT ? OFFSET ?"
            reversePageQuery = "SELECT \(columns)" + body + orderClause(reversed: true) + " LIMIT ? OFFSET ?"
        } else {
            isDistinct = true
            var keys: [SQLFragment] = []
            for keyPath in definition.distinct {
                let resolved = try compiler.resolveSingleValue(keyPath, in: scope, purpose: "distinct")
                keys.append(resolved.type == .scalar(.decimal) ? resolved.expression + " COLLATE vk_decimal" : resolved.expression)
            }
            let order = orderClause(reversed: false)
            // Rank each object within its group in the results' order; keep the first of each group.
            let ranked = "SELECT t0.\"_vk_id\" AS vk_id, row_number() OVER (PARTITION BY " + SQLFragment.joined(keys, separator: ", ") + order
                + ") AS vk_rank, row_number() OVER (" + order + ") AS vk_order" + body
            idQuery = "SELECT vk_id FROM (" + ranked + ") WHERE vk_rank = 1 ORDER BY vk_order"
            countQuery = nil
            pageQuery = nil
            reversePageQuery = nil
        }
    }

    /// `SELECT <aggregate>(property)` over the results' objects.
    func aggregateQuery(_ step: KeyPathStep, _ keyPath: String, vault: Vault, schema: ObjectSchema) throws(QueryError) -> SQLFragment {
        var compiler = QueryCompiler(lookup: { [weak vault] name in vault?.schema(named: name) })
        let resolved = try compiler.resolveSingleValue(keyPath, in: QueryCompiler.Scope(root: .row(schema, alias: "t0")), purpose: step.text)
        guard case .scalar(let type) = resolved.type else { throw QueryError("\(step.text) needs a value property") }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal]
        let allowed = step == .min || step == .max ? numeric.union([.date]) : numeric
        guard allowed.contains(type) else {
            throw QueryError("\(step.text) applies to numeric\(step == .min || step == .max ? " and date" : "") properties; \(resolved.name) is a \(type.rawValue)")
        }
        let value = resolved.expression
        let function: SQLFragment
        switch (step, type) {
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
