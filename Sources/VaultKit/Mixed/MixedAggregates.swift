import Foundation
import VaultCore

/// Which end `vk_mixed_min` / `vk_mixed_max` keep.
protocol MixedExtremumDirection {
    /// Whether `candidate` replaces `current`.
    static func prefers(_ candidate: MixedValue, over current: MixedValue) -> Bool
}

enum Minimum: MixedExtremumDirection {
    static func prefers(_ candidate: MixedValue, over current: MixedValue) -> Bool { candidate.sortOrder(current) == .orderedAscending }
}

enum Maximum: MixedExtremumDirection {
    static func prefers(_ candidate: MixedValue, over current: MixedValue) -> Bool { candidate.sortOrder(current) == .orderedDescending }
}

/// Realm's `@min`/`@max` of a mixed property: every non-nil value takes part,
/// ordered by the mixed sort order (numbers by value, across their types).
struct MixedExtremum<Direction: MixedExtremumDirection>: DatabaseAggregate {
    private var best: MixedValue?

    mutating func step(_ arguments: DatabaseFunctionArguments) {
        guard let value = try? MixedCodec.decode(arguments.value(0)) else { return }
        if case .none = value { return }
        if case .decimal(let d) = value, d.isNaN { return }
        if let current = best, !Direction.prefers(value, over: current) { return }
        best = value
    }

    func finalize(_ result: DatabaseFunctionResult) {
        guard let best else { return result.setNull() }
        result.set(MixedCodec.encode(best))
    }
}

/// Realm's `@sum`/`@avg` of a mixed property: the numbers only, added as
/// Decimal128 (realm-core's result type for mixed sums), other values ignored.
struct MixedTotal<Output: DecimalAggregateOutput>: DatabaseAggregate {
    private var sum = Decimal(0)
    private var count = 0

    mutating func step(_ arguments: DatabaseFunctionArguments) {
        guard let value = try? MixedCodec.decode(arguments.value(0)), value.isNumeric,
              let decimal = value.decimalValue, !decimal.isNaN else { return }
        sum += decimal
        count += 1
    }

    func finalize(_ result: DatabaseFunctionResult) {
        guard let value = Output.result(sum: sum, count: count) else { return result.setNull() }
        result.set(MixedCodec.encode(.decimal(Decimal128(value))))
    }
}
