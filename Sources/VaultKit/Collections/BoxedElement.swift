import Foundation

/// A collection element given as a plain value (`Object(value:)`, key-value
/// coding, a migration): itself; for mixed collections its ``AnyVaultValue``
/// (`1` is `.int(1)`); a number of another width when it converts exactly, as
/// Realm converts them — `[3, 5]` fills a `List<Int8>`, `[1.5]` a
/// `List<Float>`, `[2]` a `List<Double>`.
func boxedElement<Element>(_ value: Any, as _: Element.Type) -> Element? {
    if let element = value as? Element { return element }
    // NSNull (a JSON null) is nil for an optional element.
    if value is NSNull { return (Optional<Never>.none as Any) as? Element }
    if Element.self == AnyVaultValue.self { return (AnyVaultValue(boxed: value) as Any) as? Element }
    return convertedNumber(value, as: Element.self)
}

/// `value` as the integer or floating-point type `Element` (or its optional), when it is a number that fits.
private func convertedNumber<Element>(_ value: Any, as _: Element.Type) -> Element? {
    func exactly<Target: BinaryInteger>(_: Target.Type) -> Element? {
        guard Element.self == Target.self || Element.self == Target?.self else { return nil }
        let converted: Target? = if let integer = value as? any BinaryInteger {
            Target(exactly: integer)
        } else if let double = value as? Double {
            Target(exactly: double)
        } else {
            nil
        }
        return converted.flatMap { $0 as? Element }
    }
    func floating<Target: BinaryFloatingPoint>(_: Target.Type) -> Element? {
        guard Element.self == Target.self || Element.self == Target?.self else { return nil }
        let converted: Target? = if let integer = value as? any BinaryInteger {
            Target(exactly: integer)
        } else if let double = value as? Double {
            Target(double)
        } else if let float = value as? Float {
            Target(float)
        } else {
            nil
        }
        return converted.flatMap { $0 as? Element }
    }
    return exactly(Int.self) ?? exactly(Int8.self) ?? exactly(Int16.self) ?? exactly(Int32.self) ?? exactly(Int64.self)
        ?? floating(Double.self) ?? floating(Float.self)
}

/// A single property's value given as a plain value (`Object(value:)`, `create`,
/// key-value coding), as Realm converts it: itself, a number of another width
/// that fits (`1` for a `Double`, `1.5` for a `Float`), any value a mixed
/// property can hold, or the stored form of the property's type (an enum's raw
/// value, a custom type's persisted value — also for collection elements:
/// `["tags": ["work", "home"]]` for a `List<Tag>` of a string enum).
func convertedValue<Value: PersistableValue>(_ value: Any, to _: Value.Type) -> Value? {
    if let converted = boxedElement(value, as: Value.self) { return converted }
    // A decimal from any number or a decimal string, as Realm's `Decimal128(value:)` takes them
    // (`["price": 9.99]`, `["price": "9.99"]` — a JSON number or text).
    if Value._vaultPropertyType == .decimal, !(value is Decimal128), let decimal = try? Decimal128(value: value) {
        return Value._vaultDecode(decimal._vaultEncoded)
    }
    guard let given = value as? any PersistableValue, type(of: given)._vaultPropertyType == Value._vaultPropertyType else { return nil }
    return Value._vaultDecode(given._vaultEncoded)
}
