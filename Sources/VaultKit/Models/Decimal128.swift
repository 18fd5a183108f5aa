import Foundation
import VaultCore

/// A decimal number (Realm's `Decimal128`), stored so that comparisons and
/// sorting are numeric (as VaultKit stores `Decimal`: exact, compared by value).
///
/// ```swift
/// @Persisted var price: Decimal128 = "19.99"
/// vault.objects(Item.self).filter("price < %@", Decimal128(20))
/// ```
///
/// It holds a Foundation `Decimal` (38 significant digits; Realm's IEEE 754
/// decimal128 has 34): ``decimalValue`` gives it. `NaN` is a value, as in Realm.
public struct Decimal128: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
                          ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// The value.
    public let decimalValue: Decimal
    /// Realm's text of a value parsed from a string (its `to_string()`, which keeps the
    /// exponent: `"1.50"` stays `"1.50"`); nil for values made from numbers.
    /// Equality and hashing ignore it: `1.50 == 1.5`.
    private let realmText: String?

    /// Zero.
    public init() { decimalValue = 0; realmText = nil }
    /// The value of a Foundation `Decimal`.
    public init(_ decimal: Decimal) { decimalValue = decimal; realmText = nil }
    /// The value of an integer.
    public init(_ integer: Int) { decimalValue = Decimal(integer); realmText = nil }
    /// The value of a double (its shortest decimal representation).
    public init(_ double: Double) {
        decimalValue = Decimal(string: "\(double)", locale: Decimal128.posix) ?? Decimal(double)
        realmText = nil
    }
    /// The value of an `NSNumber` (Realm's `init(number:)`).
    public init(number: NSNumber) { decimalValue = number.decimalValue; realmText = nil }

    /// Parses a decimal string such as `"-12.5e3"`.
    /// - Throws: ``VaultObjectError/invalidValue(className:property:reason:)`` naming the text's problem (not the text).
    public init(string: String) throws {
        let text = string.trimmingCharacters(in: .whitespaces)
        if ["nan", "+nan", "-nan"].contains(text.lowercased()) {
            decimalValue = .nan
            realmText = "NaN"
            return
        }
        // Foundation parses a leading number and ignores the rest: the whole text must be one.
        guard Decimal128.isDecimalText(text), let value = Decimal(string: text, locale: Decimal128.posix) else {
            throw VaultObjectError.invalidValue(className: "Decimal128", property: "string", reason: "the text is not a decimal number")
        }
        decimalValue = value
        realmText = DecimalText.realmForm(of: text)
    }

    /// `[+-]digits[.digits][e[+-]digits]`, with at least one digit before the exponent.
    private static func isDecimalText(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func skipDigits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = skipDigits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            digits += skipDigits()
        }
        guard digits > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// A value of one of the numeric types, a `Decimal`, an `NSNumber` or a decimal string (Realm's `init(value:)`).
    public init(value: Any) throws {
        switch value {
        case let decimal as Decimal128: self = decimal
        case let decimal as Decimal: self.init(decimal)
        case let integer as Int: self.init(integer)
        case let double as Double: self.init(double)
        case let float as Float: self.init(Double(float))
        case let number as NSNumber: self.init(number: number)
        case let string as String: try self.init(string: string)
        default:
            throw VaultObjectError.invalidValue(className: "Decimal128", property: "value", reason: "a \(type(of: value)) is not a decimal number")
        }
    }

    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
    /// A decimal literal in quotes; an invalid one is a programmer error.
    public init(stringLiteral value: String) {
        guard let decimal = try? Decimal128(string: value) else { preconditionFailure("'\(value)' is not a decimal number") }
        self = decimal
    }

    /// Not a number.
    public static let nan = Decimal128(Decimal.nan)
    /// Whether the value is not a number.
    public var isNaN: Bool { decimalValue.isNaN }
    /// The value as a double (rounded).
    public var doubleValue: Double { NSDecimalNumber(decimal: decimalValue).doubleValue }
    /// The decimal text as Realm's `stringValue` gives it: Realm Core's form of the
    /// value with the fraction's trailing zeros removed (`"1.50"` is `"1.5"`,
    /// `"-23280291.00"` is `"-23280291"`, `"1.5e3"` is `"1.5E3"`, `"0.005"` is `"5E-3"`).
    public var stringValue: String { Decimal128.trimmingFractionZeros(exactText) }
    /// The text as stored, exponent and trailing zeros kept (a value parsed from
    /// `"1.50"`, or imported from Realm, stores `"1.50"`), else Foundation's canonical text.
    var exactText: String { realmText ?? NSDecimalNumber(decimal: decimalValue).description(withLocale: Decimal128.posix) }

    /// `text` without the zeros that end its fraction (before any exponent), and
    /// without the point when nothing is left after it — RLMDecimal128's rule.
    static func trimmingFractionZeros(_ text: String) -> String {
        guard let point = text.firstIndex(of: ".") else { return text }
        let exponent = text[point...].firstIndex(where: { $0 == "E" || $0 == "e" }) ?? text.endIndex
        var end = exponent
        while end > text.index(after: point), text[text.index(before: end)] == "0" { end = text.index(before: end) }
        if end == text.index(after: point) { end = point }
        return String(text[..<end]) + text[exponent...]
    }
    public var description: String { stringValue }
    /// The absolute value.
    public var magnitude: Decimal128 { Decimal128(decimalValue.magnitude) }

    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool { lhs.decimalValue == rhs.decimalValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(decimalValue) }
    private enum CodingKeys: String, CodingKey { case decimalValue }
    /// Decodes Realm's forms: a string (`"1.5e2"`) or a number (`2.2`); also
    /// VaultKit's earlier `{"decimalValue": …}`.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if let text = try? container.decode(String.self) {
                try self.init(string: text)
                return
            }
            if let decimal = try? container.decode(Decimal.self) {
                self.init(decimal)
                return
            }
        }
        self.init(try decoder.container(keyedBy: CodingKeys.self).decode(Decimal.self, forKey: .decimalValue))
    }
    /// Encodes the value as a string, as Realm does (`"2.2"`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }

    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { lhs.decimalValue < rhs.decimalValue }
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.decimalValue + rhs.decimalValue) }
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.decimalValue - rhs.decimalValue) }
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.decimalValue * rhs.decimalValue) }
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128(lhs.decimalValue / rhs.decimalValue) }
    public static prefix func - (operand: Decimal128) -> Decimal128 { Decimal128(-operand.decimalValue) }

    private static let posix = Locale(identifier: "en_US_POSIX")
}

extension Decimal128: PersistableValue {
    public static var _vaultPropertyType: PropertyType { .decimal }
    public static func _vaultDefaultValue() -> Decimal128 { Decimal128() }
    public static func _vaultDecode(_ value: DatabaseValue) -> Decimal128? {
        guard let text = value.string else { return nil }
        return try? Decimal128(string: text)
    }
    // The exact text: a value imported from Realm keeps Realm's exponent ("1.50").
    // Comparisons in queries are numeric (COLLATE vk_decimal), so both spellings compare equal.
    public var _vaultEncoded: DatabaseValue { .text(exactText) }
}
