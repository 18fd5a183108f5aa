import Foundation
import VaultCore

/// Building an ``ImageFilter`` from the query tree: for the comparisons of one
/// column with values, the ``ColumnCondition`` the compiler lowers them to (and
/// renders as SQL), and nil for everything else.
extension ImageFilter {
    /// The property types whose comparisons are plain SQL comparisons of the
    /// column (no collation, no SQL function).
    private static let comparableTypes: Set<PropertyType> = [.bool, .int, .float, .double, .string, .data, .date, .uuid, .objectId]

    static func node(_ predicate: QueryPredicate, _ schema: ObjectSchema) -> Node? {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let a, let b):
            guard let left = node(a, schema), let right = node(b, schema) else { return nil }
            return .and(left, right)
        case .or(let a, let b):
            guard let left = node(a, schema), let right = node(b, schema) else { return nil }
            return .or(left, right)
        case .not(let inner):
            return node(inner, schema).map { .not($0) }
        case .comparison(let comparison):
            return node(comparison, schema)
        }
    }

    private static func node(_ comparison: Comparison, _ schema: ObjectSchema) -> Node? {
        guard comparison.quantifier == nil, comparison.options.isEmpty else { return nil }
        var (lhs, op, rhs) = (comparison.lhs, comparison.op, comparison.rhs)
        if case .value = lhs, case .keyPath = rhs {
            // `3 < age` is `age > 3`, as the compiler turns it.
            guard let mirrored = op.mirrored else { return nil }
            (lhs, op, rhs) = (rhs, mirrored, lhs)
        }
        guard case .keyPath(let path) = lhs, path.variable == nil, path.steps.count == 1 else { return nil }
        let name: String
        switch path.steps[0] {
        case .property(let property), .argumentProperty(let property): name = property
        default: return nil
        }
        guard let propertyIndex = schema.index(ofProperty: name),
              let column = schema.columnIndexes.firstIndex(of: propertyIndex) else { return nil }
        let property = schema.properties[propertyIndex]
        guard property.isColumn, property.objectClassName == nil, comparableTypes.contains(property.type) else { return nil }
        guard let values = values(rhs, for: op) else { return nil }
        if property.type == .bool && (op.isOrdering || op == .between) { return nil }
        // The values as the compiler binds them (it has already accepted them: this cannot fail for a compiled query).
        let compiler = QueryCompiler(lookup: { _ in nil })
        var encoded: [DatabaseValue] = []
        for value in values {
            guard let value = try? compiler.encode(value, as: .scalar(property.type), name: property.name, offset: nil) else { return nil }
            encoded.append(value)
        }
        // The compiler's lowering of the comparison, made on the encoded values (`isNull` is false
        // for a NaN: it is bound, and SQLite makes it NULL, which `compare` reproduces).
        guard let condition = ColumnCondition.lowering(op, encoded) else { return nil }
        switch condition {
        case .constant(let holds): return .constant(holds)
        case .isNull: return .isNull(column)
        case .isNotNull: return .isNotNull(column)
        case .compare(let op, let bound): return .compare(column, op, bound)
        case .between(let low, let high): return .between(column, low, high)
        case .oneOf(let present, let orNull):
            let nullTest = Node.isNull(column)
            guard !present.isEmpty else { return nullTest }
            return orNull ? .or(.oneOf(column, present), nullTest) : .oneOf(column, present)
        }
    }

    /// The values on the right, as the compiler takes them: one for a
    /// comparison, a list (flattened one level) for IN and BETWEEN.
    private static func values(_ operand: QueryOperand, for op: ComparisonOperator) -> [QueryValue]? {
        switch operand {
        case .value(let value, _):
            return op == .in || op == .between ? nil : [value]
        case .list(let items, _):
            guard op == .in || op == .between else { return nil }
            var values: [QueryValue] = []
            for item in items {
                switch item {
                case .value(let value, _): values.append(value)
                case .list(let nested, _):
                    for element in nested {
                        guard case .value(let value, _) = element else { return nil }
                        values.append(value)
                    }
                default: return nil
                }
            }
            if op == .between && values.count != 2 { return nil }
            return values
        default:
            return nil
        }
    }
}
