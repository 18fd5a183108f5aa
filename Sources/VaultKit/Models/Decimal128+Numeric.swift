import Foundation

// Realm's Decimal128 is `Numeric`: generic numeric code and `total += x` work with it.

extension Decimal128: Numeric {
    /// The value of `source` when a decimal holds it exactly.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let integer = Int(exactly: source) else {
            // Beyond Int: through the decimal text, exact up to 38 digits.
            guard let value = Decimal(string: String(source)), String(source).count <= 38 else { return nil }
            self.init(value)
            return
        }
        self.init(integer)
    }

    /// Zero.
    public static var zero: Decimal128 { Decimal128() }

    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    /// Multiplies `lhs` by `rhs`.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    /// Divides `lhs` by `rhs`.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }
}

extension Decimal128 {
    /// The largest finite value VaultKit's decimals hold (Foundation's `Decimal`,
    /// about 3.4 × 10¹⁶⁵; Realm's IEEE decimal128 reaches 10⁶¹⁴⁵).
    public static var max: Decimal128 { Decimal128(Decimal.greatestFiniteMagnitude) }
    /// The smallest finite value (the negative of ``max``).
    public static var min: Decimal128 { Decimal128(-Decimal.greatestFiniteMagnitude) }
    /// Whether the value is a signaling NaN (VaultKit's NaNs are all quiet: `false`).
    public var isSignalingNaN: Bool { false }
    /// Whether the value is signaling (Realm's `isSignaling`): `false`, as ``isSignalingNaN``.
    public var isSignaling: Bool { false }
}
