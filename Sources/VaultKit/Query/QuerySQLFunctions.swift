import CSQLite
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
/// connection a `Vault` opens.
///
/// - `vk_fold(text, flags)`: ``QueryFolding`` (flags: 1 case, 2 diacritics).
/// - `vk_match(kind, text, needle, flags)`: whether the folded `text` contains
///   (kind 1), begins with (2) or ends with (3) `needle`, which the caller has
///   folded already. ASCII text is matched in place, without building a folded copy.
/// - `COLLATE vk_decimal`: orders Decimal columns (stored as canonical text) by value.
/// - `vk_decimal_sum(x)`, `vk_decimal_avg(x)`: exact Decimal aggregates.
enum QuerySQLFunctions {
    @Sendable
    static func register(_ db: Database) throws {
        let handle = db.sqliteConnection
        let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var status = sqlite3_create_function_v2(handle, "vk_fold", 2, deterministic, nil, foldFunction, nil, nil, nil)
        guard status == SQLITE_OK else { throw VaultError.invalidConfiguration("could not register vk_fold (SQLite status \(status))") }
        status = sqlite3_create_function_v2(handle, "vk_match", 4, deterministic, nil, matchFunction, nil, nil, nil)
        guard status == SQLITE_OK else { throw VaultError.invalidConfiguration("could not register vk_match (SQLite status \(status))") }
        status = sqlite3_create_collation_v2(handle, "vk_decimal", SQLITE_UTF8, nil, decimalCollation, nil)
        guard status == SQLITE_OK else { throw VaultError.invalidConfiguration("could not register vk_decimal (SQLite status \(status))") }
        for (name, average) in [("vk_decimal_sum", false), ("vk_decimal_avg", true)] {
            status = sqlite3_create_function_v2(handle, name, 1, deterministic, nil, nil,
                                                decimalStep, average ? decimalAverageFinal : decimalSumFinal, nil)
            guard status == SQLITE_OK else { throw VaultError.invalidConfiguration("could not register \(name) (SQLite status \(status))") }
        }
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    static func decimal(_ value: OpaquePointer?) -> Decimal? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return Decimal(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return Decimal(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return nil }
            return Decimal(string: String(cString: text), locale: posix)
        default: return nil
        }
    }

    static func canonical(_ decimal: Decimal) -> String {
        NSDecimalNumber(decimal: decimal).description(withLocale: posix)
    }
}

private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
    guard let arguments, sqlite3_value_type(arguments[0]) != SQLITE_NULL, let text = sqlite3_value_text(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    let length = Int(sqlite3_value_bytes(arguments[0]))
    let options = ComparisonOptions(rawValue: Int(sqlite3_value_int(arguments[1])))
    let bytes = UnsafeBufferPointer(start: text, count: length)
    if bytes.allSatisfy({ $0 < 0x80 }) {
        guard options.contains(.caseInsensitive) else {
            sqlite3_result_text(context, UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self), Int32(length), vaultkit_sqlite_transient())
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(length, 1)) { buffer in
            for index in 0..<length {
                let byte = bytes[index]
                buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            buffer.baseAddress.map { sqlite3_result_text(context, UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), Int32(length), vaultkit_sqlite_transient()) }
        }
        return
    }
    let folded = QueryFolding.fold(String(decoding: bytes, as: UTF8.self), options)
    folded.utf8CString.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), vaultkit_sqlite_transient())
    }
}

private let matchFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
    guard let arguments, sqlite3_value_type(arguments[1]) != SQLITE_NULL, sqlite3_value_type(arguments[2]) != SQLITE_NULL,
          let textPointer = sqlite3_value_text(arguments[1]), let needlePointer = sqlite3_value_text(arguments[2]) else {
        sqlite3_result_null(context)
        return
    }
    let kind = sqlite3_value_int(arguments[0])
    let options = ComparisonOptions(rawValue: Int(sqlite3_value_int(arguments[3])))
    let text = UnsafeBufferPointer(start: textPointer, count: Int(sqlite3_value_bytes(arguments[1])))
    let needle = UnsafeBufferPointer(start: needlePointer, count: Int(sqlite3_value_bytes(arguments[2])))
    if text.allSatisfy({ $0 < 0x80 }) && needle.allSatisfy({ $0 < 0x80 }) {
        let lower = options.contains(.caseInsensitive)
        sqlite3_result_int(context, asciiMatch(kind, text, needle, lowercasing: lower) ? 1 : 0)
        return
    }
    let folded = Array(QueryFolding.fold(String(decoding: text, as: UTF8.self), options).utf8)
    let result = folded.withUnsafeBufferPointer { asciiMatch(kind, $0, needle, lowercasing: false) }
    sqlite3_result_int(context, result ? 1 : 0)
}

/// Byte-wise contains / begins with / ends with, lowercasing A–Z of `text` when asked.
private func asciiMatch(_ kind: Int32, _ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
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

private let decimalCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, length1, text1, length2, text2 in
    func read(_ pointer: UnsafeRawPointer?, _ length: Int32) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
    }
    let left = read(text1, length1), right = read(text2, length2)
    guard let a = Decimal(string: left, locale: QuerySQLFunctions.posix), let b = Decimal(string: right, locale: QuerySQLFunctions.posix),
          !a.isNaN, !b.isNaN else {
        return left < right ? -1 : (left == right ? 0 : 1)
    }
    return a < b ? -1 : (a == b ? 0 : 1)
}

/// The running state of a Decimal aggregate, kept in SQLite's aggregate context.
private final class DecimalAccumulator {
    var sum = Decimal(0)
    var count = 0
}

private func accumulator(_ context: OpaquePointer?, create: Bool) -> DecimalAccumulator? {
    let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
    guard let slot = sqlite3_aggregate_context(context, create ? size : 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else { return nil }
    if let existing = slot.pointee { return Unmanaged<DecimalAccumulator>.fromOpaque(existing).takeUnretainedValue() }
    guard create else { return nil }
    let fresh = DecimalAccumulator()
    slot.pointee = Unmanaged.passRetained(fresh).toOpaque()
    return fresh
}

/// Takes the accumulator out of the context (releasing it), once per aggregate.
private func finishAccumulator(_ context: OpaquePointer?) -> DecimalAccumulator? {
    guard let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self), let raw = slot.pointee else { return nil }
    slot.pointee = nil
    return Unmanaged<DecimalAccumulator>.fromOpaque(raw).takeRetainedValue()
}

private let decimalStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
    guard let arguments, let value = QuerySQLFunctions.decimal(arguments[0]), let state = accumulator(context, create: true) else { return }
    state.sum += value
    state.count += 1
}

private let decimalSumFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    let sum = finishAccumulator(context)?.sum ?? 0
    QuerySQLFunctions.canonical(sum).utf8CString.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), vaultkit_sqlite_transient())
    }
}

private let decimalAverageFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    guard let state = finishAccumulator(context), state.count > 0 else {
        sqlite3_result_null(context)
        return
    }
    QuerySQLFunctions.canonical(state.sum / Decimal(state.count)).utf8CString.withUnsafeBufferPointer { buffer in
        sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), vaultkit_sqlite_transient())
    }
}
