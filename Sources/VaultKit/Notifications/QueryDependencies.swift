import Foundation
import VaultCore

/// Which columns of its own class decide a `Results`' members and order.
///
/// A delivery re-runs the observed query only when a commit could have changed
/// its ids: when rows of the class were inserted or deleted, or when a written
/// column is one the filter, sort or distinct reads. A commit that only writes
/// other columns (a score, when the list is filtered by age and sorted by name)
/// leaves the ids as they were: only modifications are computed. Queries that
/// read further — through links, collections, backlinks or subqueries, or over
/// a list's or set's members — always re-run.
struct QueryDependencies {
    /// Property indexes of the class; `nil`: the query reads beyond its own row.
    let ownColumns: Set<Int>?

    init(definition: ResultsDefinition, schema: ObjectSchema) {
        guard case .table = definition.base else {
            ownColumns = nil
            return
        }
        var columns = Set<Int>()
        func column(_ name: String) -> Bool {
            guard let index = schema.index(ofProperty: name), schema.properties[index].isColumn else { return false }
            columns.insert(index)
            return true
        }
        func keyPath(_ path: QueryKeyPath) -> Bool {
            guard path.variable == nil, path.steps.count == 1, case .property(let name) = path.steps[0] else { return false }
            return column(name)
        }
        func readsOwnColumns(_ operand: QueryOperand) -> Bool {
            switch operand {
            case .keyPath(let path): return keyPath(path)
            case .value: return true
            case .list(let items, _): return items.allSatisfy(readsOwnColumns)
            case .subqueryCount: return false
            }
        }
        func readsOwnColumns(_ predicate: QueryPredicate) -> Bool {
            switch predicate {
            case .constant: return true
            case .and(let left, let right), .or(let left, let right): return readsOwnColumns(left) && readsOwnColumns(right)
            case .not(let inner): return readsOwnColumns(inner)
            case .comparison(let comparison):
                return comparison.quantifier == nil && readsOwnColumns(comparison.lhs) && readsOwnColumns(comparison.rhs)
            }
        }
        let ownOnly = definition.predicates.allSatisfy { readsOwnColumns($0) }
            && definition.sort.allSatisfy { !$0.keyPath.contains(".") && column($0.keyPath) }
            && definition.distinct.allSatisfy { !$0.contains(".") && column($0) }
        ownColumns = ownOnly ? columns : nil
    }

    /// Whether the ids delivered last still hold after `changes` to table `className`.
    func idsUnchanged(by changes: TransactionChanges, className: String, linkColumns: Set<Int>) -> Bool {
        guard let ownColumns else { return false }
        guard let table = changes.tables[className] else { return true }
        guard table.inserted.isEmpty, table.deleted.isEmpty else { return false }
        for written in table.written.values {
            if !written.indexes.isDisjoint(with: ownColumns) { return false }
            if written.linkColumns && !linkColumns.isDisjoint(with: ownColumns) { return false }
        }
        return true
    }
}
