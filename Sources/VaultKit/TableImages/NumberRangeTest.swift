import Foundation
import VaultCore

/// `value op bound` for a column of numbers with no NULL and a bound of the
/// same kind that is not NULL, as one test of a closed range: every operator
/// is a range (`<` below the bound's predecessor, `!=` outside `[bound, bound]`),
/// so a loop over the column is a pair of comparisons per row, with no branch
/// on the operator. Integers' predecessor and successor are exact; a real's
/// are its neighbouring doubles, which, with no NaN on either side, select
/// exactly the values `<` and `>` select (`-0.0` and `0.0` are equal in both).
struct NumberRangeTest {
    private enum Bounds {
        case integers(Int64, Int64)
        case reals(Double, Double)
        case nothing
    }

    private let bounds: Bounds
    private let negated: Bool

    /// Nil when the column may hold NULLs or mixes kinds, or the bound is NULL
    /// or of the other kind (those go row by row through `ImageFilter.compare`).
    init?(column: ImageColumn, _ op: ImageFilter.Operator, _ bound: DatabaseValue) {
        guard column.hasNoNulls, !ImageFilter.isNull(bound) else { return nil }
        negated = op == .notEqual
        switch (column.kind, bound) {
        case (.integer, .integer(let value)):
            switch op {
            case .equal, .notEqual: bounds = .integers(value, value)
            case .less: bounds = value == .min ? .nothing : .integers(.min, value - 1)
            case .lessOrEqual: bounds = .integers(.min, value)
            case .greater: bounds = value == .max ? .nothing : .integers(value + 1, .max)
            case .greaterOrEqual: bounds = .integers(value, .max)
            }
        case (.real, .real(let value)):
            // A `.real` column holds no NaN (one stored as text makes it `.values`), and the bound is not NaN (that is NULL).
            switch op {
            case .equal, .notEqual: bounds = .reals(value, value)
            case .less: bounds = value == -.infinity ? .nothing : .reals(-.infinity, value.nextDown)
            case .lessOrEqual: bounds = .reals(-.infinity, value)
            case .greater: bounds = value == .infinity ? .nothing : .reals(value.nextUp, .infinity)
            case .greaterOrEqual: bounds = .reals(value, .infinity)
            }
        default:
            return nil
        }
    }

    /// The test both `self` and `other` pass (a row inside both ranges), for
    /// one loop where their `AND` would take two: nil when either is `!=` (a
    /// range's complement) or they compare numbers of different kinds.
    func intersection(_ other: NumberRangeTest) -> NumberRangeTest? {
        guard !negated, !other.negated else { return nil }
        switch (bounds, other.bounds) {
        case (.nothing, _), (_, .nothing):
            return NumberRangeTest(bounds: .nothing)
        case (.integers(let low, let high), .integers(let otherLow, let otherHigh)):
            let (newLow, newHigh) = (Swift.max(low, otherLow), Swift.min(high, otherHigh))
            return NumberRangeTest(bounds: newLow <= newHigh ? .integers(newLow, newHigh) : .nothing)
        case (.reals(let low, let high), .reals(let otherLow, let otherHigh)):
            // No NaN on either side: these are total orders (a signed zero equals the other).
            let (newLow, newHigh) = (Swift.max(low, otherLow), Swift.min(high, otherHigh))
            return NumberRangeTest(bounds: newLow <= newHigh ? .reals(newLow, newHigh) : .nothing)
        default:
            return nil
        }
    }

    private init(bounds: Bounds) {
        self.bounds = bounds
        negated = false
    }

    /// Writes the comparison's truth for each number (an integer, or a real's
    /// bit pattern) as a truth's raw value (`.false` is 0, `.true` 1), or, when
    /// `refining`, ANDs it into the truth there (a mask of all ones keeps it,
    /// zero makes it `.false`). One loop per case, the operator decided outside
    /// it and no branch inside (the range's low end is never above its high end).
    func write(_ truths: UnsafeMutableBufferPointer<UInt8>, from numbers: UnsafeBufferPointer<Int64>, refining: Bool) {
        let count = Swift.min(truths.count, numbers.count)
        let (whenInside, whenOutside): (UInt8, UInt8) = refining ? (negated ? (0, 0xFF) : (0xFF, 0)) : (negated ? (0, 1) : (1, 0))
        switch bounds {
        case .integers(let low, let high):
            // `low <= value <= high` as one unsigned comparison of the distances from `low`.
            let span = UInt64(bitPattern: high &- low)
            if refining {
                for row in 0..<count { truths[row] &= UInt64(bitPattern: numbers[row] &- low) <= span ? whenInside : whenOutside }
            } else {
                for row in 0..<count { truths[row] = UInt64(bitPattern: numbers[row] &- low) <= span ? whenInside : whenOutside }
            }
        case .reals(let low, let high):
            // With no NaN and `low <= high`, a value is never below `low` and above `high`:
            // it is inside exactly when both comparisons agree.
            @inline(__always) func inside(_ bits: Int64) -> Bool {
                let value = Double(bitPattern: UInt64(bitPattern: bits))
                return (value >= low) == (value <= high)
            }
            if refining {
                for row in 0..<count { truths[row] &= inside(numbers[row]) ? whenInside : whenOutside }
            } else {
                for row in 0..<count { truths[row] = inside(numbers[row]) ? whenInside : whenOutside }
            }
        case .nothing:
            for row in 0..<count { truths[row] = refining ? truths[row] & whenOutside : whenOutside }
        }
    }
}
