import Foundation
import VaultCore

// MARK: - Filters a table image can test
//
// A `Results`' filters are compiled to SQL (QueryCompiler), and that SQL is
// what a filter means. For the subset whose SQL is a comparison of a column of
// the queried class with bound values, the compiler first lowers each
// comparison to a `ColumnCondition` (the operator's meaning, decided once,
// on the values `QueryCompiler.encode` encodes) and renders that as SQL.
// `ImageFilter` takes the same lowering, keeps the query's AND, OR and NOT
// around it, and evaluates it on decoded column values as SQLite evaluates
// the rendered SQL:
//
// - Three-valued logic: a comparison with NULL is *unknown*; `AND`/`OR` follow
//   SQL's truth tables; `NOT` is the compiler's `NOT coalesce(x, 0)` (an
//   unknown counts as false, then is negated); a row matches when the whole
//   filter is true.
// - `IS NULL`, `IS NOT NULL` and `IS NOT ?` (the compiler's `!=`) are never
//   unknown. A NaN bound is NULL, as `sqlite3_bind_double` makes it.
// - Values compare as SQLite's BINARY collation does: numbers by value
//   (integers against reals exactly), then text by its UTF-8 bytes, then
//   blobs by their bytes; a number sorts before any text, text before any
//   blob (a NaN `Double` is stored as text, and compares as text). The
//   columns' affinities convert nothing here: every bound value already has
//   its column's storage class (the encoder sees to that).
//
// Anything else — key paths through links or collections, quantifiers,
// string operators, `[c]`/`[d]`, mixed and decimal properties (their SQL
// calls functions and collations), subqueries, comparisons of two key
// paths — makes the initialiser return nil, and the query runs in SQLite.
// `ImageFilterTests` checks the two against each other on random filters
// and random rows, NULLs, NaNs, large integers and non-ASCII text included.

/// A filter evaluated on a ``TableImage``'s rows (see above).
struct ImageFilter {
    /// The truth of a condition: SQL's three values. Declared in raw-value
    /// order, so the byte Swift stores for a case is its raw value: the number
    /// loops (`NumberRangeTest`) write and mask raw values in place
    /// (`ImageColumnTests.truthLayout` checks it).
    enum Truth: UInt8 {
        case `false` = 0, `true` = 1, unknown = 2
    }

    /// The comparisons a column condition makes (`notEqual` is `IS NOT`): the compiler's.
    typealias Operator = ColumnCondition.Operator

    indirect enum Node {
        case constant(Bool)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        case isNull(Int)
        case isNotNull(Int)
        case compare(Int, Operator, DatabaseValue)
        case between(Int, DatabaseValue, DatabaseValue)
        /// `column IN (values)`: the values are not NULL (the compiler leaves NULLs out).
        case oneOf(Int, [DatabaseValue])
    }

    let root: Node

    /// The filter for `predicates` (all of which must hold) on `schema`'s
    /// rows, or nil when one of them is not a column comparison this type
    /// evaluates as SQLite would.
    init?(_ predicates: [QueryPredicate], schema: ObjectSchema) {
        var root = Node.constant(true)
        var first = true
        for predicate in predicates {
            guard let node = Self.node(predicate, schema) else { return nil }
            root = first ? node : .and(root, node)
            first = false
        }
        self.root = root
    }

    /// The rows of `image` that match, ascending.
    func matchingRows(in image: TableImage) -> [Int] {
        let truths = Self.truths(root, image)
        return truths.withUnsafeBufferPointer { truths in
            truths.withMemoryRebound(to: UInt8.self) { truths in
                // Counted first, then written: no growth, no per-row capacity check.
                var matches = 0
                for truth in truths { matches &+= truth == Truth.true.rawValue ? 1 : 0 }
                // Not through the initializer with no capacity: it sets the count of the
                // empty array every thread shares (a data race ThreadSanitizer reports).
                guard matches > 0 else { return [] }
                return [Int](unsafeUninitializedCapacity: matches) { rows, initialized in
                    var next = 0
                    for row in truths.indices where truths[row] == Truth.true.rawValue && next < matches {
                        rows.initializeElement(at: next, to: row)
                        next += 1
                    }
                    initialized = next
                }
            }
        }
    }

    // MARK: Evaluation, a column at a time

    /// The truth of `node` for every row of `image`: each comparison is one
    /// loop over its column (numbers compared in place; two ranges of one
    /// column `AND`-ed, or a `BETWEEN`, one loop over their intersection),
    /// then `AND`, `OR` and `NOT` combine the rows' truths.
    static func truths(_ node: Node, _ image: TableImage) -> [Truth] {
        let count = image.count
        switch node {
        case .constant(let value):
            return Array(repeating: value ? .true : .false, count: count)
        case .and(let a, let b):
            // Two ranges of one column of numbers (`age >= 30 AND age < 40`): one loop.
            if case .compare(let column, let op, let bound) = a, case .compare(column, let otherOp, let otherBound) = b,
               let both = image.columns[column].truths(op, bound, and: otherOp, otherBound, count: count) { return both }
            var left = truths(a, image)
            // A comparison of a column of numbers narrows the left side's truths in place.
            if case .compare(let column, let op, let bound) = b, image.columns[column].refine(&left, op, bound) { return left }
            return combine(left, truths(b, image), both)
        case .or(let a, let b):
            return combine(truths(a, image), truths(b, image)) { left, right in
                if left == .true || right == .true { return .true }
                return left == .false && right == .false ? .false : .unknown
            }
        case .not(let inner):
            // `NOT coalesce(x, 0)`: an unknown counts as false, then is negated.
            var values = truths(inner, image)
            values.withUnsafeMutableBufferPointer { values in
                for row in values.indices { values[row] = values[row] == .true ? .false : .true }
            }
            return values
        case .isNull(let column):
            return image.columns[column].nullTruths(count: count, isNull: true)
        case .isNotNull(let column):
            return image.columns[column].nullTruths(count: count, isNull: false)
        case .compare(let column, let op, let bound):
            return image.columns[column].truths(op, bound, count: count)
        case .between(let column, let low, let high):
            if let both = image.columns[column].truths(.greaterOrEqual, low, and: .lessOrEqual, high, count: count) { return both }
            var left = image.columns[column].truths(.greaterOrEqual, low, count: count)
            if image.columns[column].refine(&left, .lessOrEqual, high) { return left }
            return combine(left, image.columns[column].truths(.lessOrEqual, high, count: count), both)
        case .oneOf(let column, let values):
            var result = Array(repeating: Truth.unknown, count: count)
            image.columns.withUnsafeBufferPointer { columns in
                for row in 0..<count where !columns[column].isNull(at: row) {
                    result[row] = .false
                    for candidate in values {
                        if isNull(candidate) { result[row] = .unknown; continue }
                        if columns[column].order(at: row, candidate) == 0 { result[row] = .true; break }
                    }
                }
            }
            return result
        }
    }

    /// SQL's `AND`.
    @inline(__always)
    private static func both(_ left: Truth, _ right: Truth) -> Truth {
        if left == .false || right == .false { return .false }
        return left == .true && right == .true ? .true : .unknown
    }

    @inline(__always)
    private static func combine(_ a: [Truth], _ b: [Truth], _ rule: (Truth, Truth) -> Truth) -> [Truth] {
        var result = a
        result.withUnsafeMutableBufferPointer { result in
            b.withUnsafeBufferPointer { b in
                for row in result.indices { result[row] = rule(result[row], b[row]) }
            }
        }
        return result
    }

    /// Row `row` of `column` `op` `bound`, as SQLite evaluates it.
    @inline(__always)
    static func compare(_ column: ImageColumn, _ row: Int, _ op: Operator, _ bound: DatabaseValue) -> Truth {
        let valueIsNull = column.isNull(at: row), boundIsNull = isNull(bound)
        if op == .notEqual {
            if valueIsNull || boundIsNull { return valueIsNull == boundIsNull ? .false : .true }
            return column.order(at: row, bound) != 0 ? .true : .false
        }
        if valueIsNull || boundIsNull { return .unknown }
        return holds(op, column.order(at: row, bound)) ? .true : .false
    }

    @inline(__always)
    static func holds(_ op: Operator, _ ordering: Int) -> Bool {
        switch op {
        case .equal: ordering == 0
        case .notEqual: ordering != 0
        case .less: ordering < 0
        case .lessOrEqual: ordering <= 0
        case .greater: ordering > 0
        case .greaterOrEqual: ordering >= 0
        }
    }

    /// A value as SQLite holds it: a NaN real is NULL.
    @inline(__always)
    static func isNull(_ value: DatabaseValue) -> Bool {
        switch value {
        case .null: true
        case .real(let number): number.isNaN
        default: false
        }
    }

    /// SQLite's order of two non-NULL values under the BINARY collation:
    /// negative, zero or positive.
    static func order(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .real(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .real(let y)): return compare(integer: x, real: y)
        case (.real(let x), .integer(let y)): return -compare(integer: y, real: x)
        case (.text(let x), .text(let y)): return compareBytes(x, y)
        case (.blob(let x), .blob(let y)): return compareBytes(x, y)
        default: return rank(a) - rank(b)
        }
    }

    /// Numbers, then text, then blobs.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }

    /// An integer against a real, exactly (a conversion of either to the
    /// other's type can round): the order of `integer` and `real`.
    static func compare(integer: Int64, real: Double) -> Int {
        // 2^63: every Int64 is below it, and at or above -2^63.
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        // In range: the truncation is exact, and so is the remainder.
        let whole = Int64(real)
        if integer != whole { return integer < whole ? -1 : 1 }
        let fraction = real - Double(whole)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// `memcmp` of the UTF-8 bytes, then the shorter first.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in compareBytes(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    static func compareBytes(_ a: Data, _ b: Data) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareBytes(x, y) } }
    }

    static func compareBytes(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(x.count, y.count)
        if common > 0, let xBase = x.baseAddress, let yBase = y.baseAddress {
            let result = memcmp(xBase, yBase, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}
