import VaultCore

/// A comparison of one stored value with bound values, as a query means it: the
/// one place where an operator's treatment of NULL, of a missing or NULL bound,
/// of an empty list and of a NULL inside `IN` is decided.
///
/// `QueryCompiler` lowers every comparison of a value path with values to this
/// (after encoding the values as they are bound) and renders it as SQL;
/// `ImageFilter` takes the same lowering for the comparisons a table image can
/// evaluate, and evaluates it as SQLite evaluates that SQL. Neither re-derives
/// the operators: a change of meaning is made here, once, for both.
///
/// The string operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`) are not
/// lowered: they only ever run as SQL (their SQL calls functions and collations).
enum ColumnCondition: Equatable {
    /// The comparisons of a value with one bound value.
    enum Operator: Equatable {
        /// `=`.
        case equal
        /// SQL's `IS NOT`: never unknown (a NULL value differs from any bound).
        case notEqual
        case less, lessOrEqual, greater, greaterOrEqual

        /// The SQL operator.
        var sql: String {
            switch self {
            case .equal: "="
            case .notEqual: "IS NOT"
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
        }
    }

    /// Always true or always false, whatever the value.
    case constant(Bool)
    /// The value is NULL.
    case isNull
    /// The value is not NULL.
    case isNotNull
    /// The value compared with a bound that is not NULL.
    case compare(Operator, DatabaseValue)
    /// `BETWEEN` two bounds that are not NULL.
    case between(DatabaseValue, DatabaseValue)
    /// `IN` the values (none NULL), or — when `orNull` — NULL. At least one of the two.
    case oneOf([DatabaseValue], orNull: Bool)

    /// The condition `op` makes with `encoded` (the values as bound), or nil for a string operator.
    ///
    /// A comparison with no value or a NULL bound: `==` is `IS NULL`, `!=` is
    /// `IS NOT NULL`, an ordering or `BETWEEN` is never true. `IN` drops its NULLs
    /// and matches a NULL value if it had one; an empty `IN` is never true.
    static func lowering(_ op: ComparisonOperator, _ encoded: [DatabaseValue]) -> ColumnCondition? {
        switch op {
        case .equal:
            guard let value = encoded.first else { return .constant(false) }
            return value.isNull ? .isNull : .compare(.equal, value)
        case .notEqual:
            guard let value = encoded.first else { return .constant(true) }
            return value.isNull ? .isNotNull : .compare(.notEqual, value)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let value = encoded.first, !value.isNull else { return .constant(false) }
            let ordering: Operator = switch op {
            case .less: .less
            case .lessOrEqual: .lessOrEqual
            case .greater: .greater
            default: .greaterOrEqual
            }
            return .compare(ordering, value)
        case .between:
            guard encoded.count == 2, !encoded[0].isNull, !encoded[1].isNull else { return .constant(false) }
            return .between(encoded[0], encoded[1])
        case .in:
            let present = encoded.filter { !$0.isNull }
            let orNull = present.count != encoded.count
            guard !present.isEmpty || orNull else { return .constant(false) }
            return .oneOf(present, orNull: orNull)
        case .beginsWith, .endsWith, .contains, .like:
            return nil
        }
    }

    /// The SQL of the condition: `value` is the compared expression as a comparison
    /// reads it (collated, folded), `raw` the stored column (for the NULL tests).
    func sql(value: SQLFragment, raw: SQLFragment) -> SQLFragment {
        switch self {
        case .constant(let holds):
            return SQLFragment(holds ? "1" : "0")
        case .isNull:
            return "(" + raw + " IS NULL)"
        case .isNotNull:
            return "(" + raw + " IS NOT NULL)"
        case .compare(let op, let bound):
            return "(" + value + " \(op.sql) ?)" + SQLFragment("", [bound])
        case .between(let low, let high):
            return "(" + value + " BETWEEN ? AND ?)" + SQLFragment("", [low, high])
        case .oneOf(let present, let orNull):
            var parts: [SQLFragment] = []
            if !present.isEmpty {
                parts.append("(" + value + " IN (\(present.map { _ in "?" }.joined(separator: ", "))))" + SQLFragment("", present))
            }
            if orNull { parts.append("(" + raw + " IS NULL)") }
            return "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
        }
    }
}
