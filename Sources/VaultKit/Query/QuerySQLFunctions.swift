import Foundation
import VaultCore

/// Case and diacritic folding for `[c]`, `[d]` and `[cd]` comparisons.
///
/// The same function folds the stored value (inside SQLite, as `vk_fold`) and
/// the query's argument (in Swift before binding), so both sides always agree.
///
/// - ASCII text takes a byte-wise fast path (`[c]` lowercases A–Z; `[d]` has
///   nothing to remove).
/// - Other text uses Foundation's `folding(options:locale: nil)`: Unicode case
///   folding and diacritic removal, locale-independent. `"Ä" ==[cd] "a"` is true;
///   `"ß" ==[c] "SS"` depends on whether Foundation's case folding expands ß
///   (the test suite records the behaviour on each platform: see QueryTests).
enum QueryFolding {
    static func fold(_ string: String, _ options: ComparisonOptions) -> String {
        let utf8 = string.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive) else { return string }
            return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        var foldingOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldingOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldingOptions.insert(.diacriticInsensitive) }
        return string.folding(options: foldingOptions, locale: nil)
    }
}

/// The SQL functions and collations compiled queries use, registered on every
/// connection a `Vault` opens (through the core's ``DatabaseFunction`` and
/// ``DatabaseCollation``; VaultKit never calls SQLite's C API).
///
/// - `vk_fold(text, flags)`: ``QueryFolding`` (flags: 1 case, 2 diacritics).
/// - `vk_match(kind, text, needle, flags)`: whether the folded `text` contains
///   (kind 1), begins with (2) or ends with (3) `needle`, which the caller has
///   folded already. ASCII text is matched in place, without building a folded copy.
/// - `COLLATE vk_decimal`: orders Decimal columns (stored as canonical text) by value.
/// - `vk_decimal_sum(x)`, `vk_decimal_avg(x)`: exact Decimal aggregates.
enum QuerySQLFunctions {
    static let functions: [DatabaseFunction] = [
        DatabaseFunction("vk_fold", argumentCount: 2, fold),
        DatabaseFunction("vk_match", argumentCount: 4, match),
        DatabaseFunction("vk_decimal_sum", argumentCount: 1, aggregate: DecimalAggregate<SumOutput>.self),
        DatabaseFunction("vk_decimal_avg", argumentCount: 1, aggregate: DecimalAggregate<AverageOutput>.self),
    ]
    static let decimalCollation = DatabaseCollation("vk_decimal", compareDecimals)

    @Sendable
    static func register(_ db: Database) throws {
        for function in functions { try db.add(function) }
        for function in MixedSQLFunctions.functions { try db.add(function) }
        try db.add(decimalCollation)
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    static func canonical(_ decimal: Decimal) -> String {
        NSDecimalNumber(decimal: decimal).description(withLocale: posix)
    }

    @Sendable
    private static func fold(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        let options = ComparisonOptions(rawValue: Int(arguments.int64(1)))
        guard let bytes = arguments.utf8(0) else { return result.setNull() }
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return result.setText(QueryFolding.fold(String(decoding: bytes, as: UTF8.self), options))
        }
        guard options.contains(.caseInsensitive) else { return result.setText(utf8: bytes) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { buffer in
            for index in 0..<bytes.count {
                let byte = bytes[index]
                buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            result.setText(utf8: UnsafeBufferPointer(rebasing: buffer[0..<bytes.count]))
        }
    }

    @Sendable
    private static func match(_ arguments: DatabaseFunctionArguments, _ result: DatabaseFunctionResult) {
        let kind = arguments.int64(0)
        let options = ComparisonOptions(rawValue: Int(arguments.int64(3)))
        guard let text = arguments.utf8(1), let needle = arguments.utf8(2) else { return result.setNull() }
        let matched: Bool
        if text.allSatisfy({ $0 < 0x80 }) && needle.allSatisfy({ $0 < 0x80 }) {
            matched = asciiMatch(kind, text, needle, lowercasing: options.contains(.caseInsensitive))
        } else {
            let folded = Array(QueryFolding.fold(String(decoding: text, as: UTF8.self), options).utf8)
            matched = folded.withUnsafeBufferPointer { asciiMatch(kind, $0, needle, lowercasing: false) }
        }
        result.setInteger(matched ? 1 : 0)
    }

    /// Byte-wise contains / begins with / ends with, lowercasing A–Z of `text` when asked.
    private static func asciiMatch(_ kind: Int64, _ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
        @inline(__always) func at(_ index: Int) -> UInt8 {
            let byte = text[index]
            return lowercasing && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        }
        let n = needle.count, m = text.count
        guard n <= m else { return false }
        guard n > 0 else { return true }
        func matches(at start: Int) -> Bool {
            for offset in 0..<n where at(start + offset) != needle[offset] { return false }
            return true
        }
        switch kind {
        case 2: return matches(at: 0)
        case 3: return matches(at: m - n)
        default:
            let first = needle[0]
            var start = 0
            while start <= m - n {
                if at(start) == first && matches(at: start) { return true }
                start += 1
            }
            return false
        }
    }

    @Sendable
    private static func compareDecimals(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> ComparisonResult {
        let leftText = String(decoding: left, as: UTF8.self), rightText = String(decoding: right, as: UTF8.self)
        guard let a = Decimal(string: leftText, locale: posix), let b = Decimal(string: rightText, locale: posix),
              !a.isNaN, !b.isNaN else {
            return leftText < rightText ? .orderedAscending : (leftText == rightText ? .orderedSame : .orderedDescending)
        }
        return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// A Decimal argument: stored Decimals are canonical text; integers and reals convert.
    static func decimal(_ arguments: DatabaseFunctionArguments, _ index: Int) -> Decimal? {
        switch arguments.value(index) {
        case .integer(let value): return Decimal(value)
        case .real(let value): return Decimal(value)
        case .text(let text): return Decimal(string: text, locale: posix)
        default: return nil
        }
    }
}

/// What an exact Decimal aggregate reports: the sum, or the average (nil for no rows).
protocol DecimalAggregateOutput {
    static func result(sum: Decimal, count: Int) -> Decimal?
}

enum SumOutput: DecimalAggregateOutput {
    static func result(sum: Decimal, count: Int) -> Decimal? { sum }
}

enum AverageOutput: DecimalAggregateOutput {
    static func result(sum: Decimal, count: Int) -> Decimal? { count > 0 ? sum / Decimal(count) : nil }
}

/// `vk_decimal_sum` / `vk_decimal_avg`: exact sums of Decimal columns (SQL's own sum would go through doubles).
struct DecimalAggregate<Output: DecimalAggregateOutput>: DatabaseAggregate {
    private var sum = Decimal(0)
    private var count = 0

    mutating func step(_ arguments: DatabaseFunctionArguments) {
        guard let value = QuerySQLFunctions.decimal(arguments, 0) else { return }
        sum += value
        count += 1
    }

    func finalize(_ result: DatabaseFunctionResult) {
        guard let value = Output.result(sum: sum, count: count) else { return result.setNull() }
        result.setText(QuerySQLFunctions.canonical(value))
    }
}
