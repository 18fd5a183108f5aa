/// A decimal128 as Realm stores it: IEEE 754-2008 decimal128 in the binary
/// integer decimal (BID) encoding, two little-endian 64-bit words.
///
/// `description` reproduces Realm Core's `Decimal128::to_string()` exactly
/// (realm-core `decimal128.cpp`): for coefficients that fit in 64 bits, digits
/// with a decimal point moved left by a negative exponent and an `E<exp>`
/// suffix for what remains ("40069629.07", "1.5E-7", "12E3", "-Inf", "NaN");
/// for larger coefficients, the Intel library's `bid128_to_string` form
/// ("+1234567890123456789012345E-5").
public struct RealmDecimal128: Sendable, Hashable, CustomStringConvertible {
    /// The low 64 bits (the low part of the coefficient).
    public let low: UInt64
    /// The high 64 bits (sign, exponent or special bits, high part of the coefficient).
    public let high: UInt64

    /// Creates a value from its two 64-bit words.
    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    static let exponentBias = 6176
    static let signMask: UInt64 = 1 << 63
    static let exponentMask: UInt64 = ((1 << 14) - 1) << 49
    static let coefficientHighMask: UInt64 = (1 << 49) - 1

    /// Realm's null decimal: a quiet NaN with payload 0xaa.
    static let null = RealmDecimal128(low: 0xaa, high: 0x7c00_0000_0000_0000)

    /// Whether this is the bit pattern Realm uses for null (never a user value).
    var isRealmNull: Bool { self == Self.null }

    /// Whether the bits are a canonical BID128 encoding (IEEE 754-2008 §3.5.2): an infinity or
    /// a NaN, or a finite value in the "00/01/10" form whose coefficient is at most 10³⁴ − 1.
    /// (The "11" form of a finite decimal128 always spells a coefficient above 10³⁴ − 1.)
    /// The Intel library that Realm uses produces canonical encodings only; IEEE 754 reads a
    /// non-canonical coefficient as zero, so such bits cannot be a value Realm stored.
    public var isCanonical: Bool {
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 { return true }
        if high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 { return false }
        let coefficientHigh = high & Self.coefficientHighMask
        // 10³⁴ − 1 = 0x0001ed09bead87c0_378d8e63ffffffff.
        return coefficientHigh < 0x0001_ed09_bead_87c0
            || (coefficientHigh == 0x0001_ed09_bead_87c0 && low <= 0x378d_8e63_ffff_ffff)
    }

    /// What an error says of a decimal that is not canonical.
    static let nonCanonicalReason = "a decimal whose encoding does not decode (a coefficient beyond 34 digits)"

    /// Whether the value is negative (the sign bit is set).
    public var isNegative: Bool { high & Self.signMask != 0 }

    /// Whether the value is a NaN (quiet or signalling).
    public var isNaN: Bool { high & 0x7c00_0000_0000_0000 == 0x7c00_0000_0000_0000 }

    /// Whether the value is an infinity.
    public var isInfinite: Bool { high & 0x7c00_0000_0000_0000 == 0x7800_0000_0000_0000 }

    /// Realm's `to_string()` form.
    public var description: String {
        if isRealmNull { return "NULL" }
        let sign = isNegative
        var exponent = Int((high & Self.exponentMask) >> 49) - Self.exponentBias
        let coefficientHigh = high & Self.coefficientHighMask
        if coefficientHigh != 0 { return intelString() }
        var text = sign ? "-" : ""
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 {
            text += high & 0x7c00_0000_0000_0000 == 0x7c00_0000_0000_0000 ? "NaN" : "Inf"
            return text
        }
        let digits = String(low)
        var digitsBefore = digits.count
        while digitsBefore > 1 && exponent != 0 {
            digitsBefore -= 1
            exponent += 1
        }
        text += digits.prefix(digitsBefore)
        if digitsBefore < digits.count {
            text += "."
            text += digits.dropFirst(digitsBefore)
        }
        if exponent != 0 {
            text += "E\(exponent)"
        }
        return text
    }

    /// The Intel decimal library's `bid128_to_string` form (used by Realm when the
    /// coefficient does not fit in the low word).
    private func intelString() -> String {
        let signChar = isNegative ? "-" : "+"
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 {
            if high & 0x7c00_0000_0000_0000 == 0x7c00_0000_0000_0000 {
                return signChar + (high & 0x7e00_0000_0000_0000 == 0x7e00_0000_0000_0000 ? "SNaN" : "NaN")
            }
            return signChar + "Inf"
        }
        var biased = (high & Self.exponentMask) >> 49
        let steering = high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000
        if steering { biased = ((high << 2) & Self.exponentMask) >> 49 }
        let exponent = Int(biased) - Self.exponentBias
        let coefficientHigh = high & Self.coefficientHighMask
        // 10^34 - 1 = 0x0001ed09bead87c0_378d8e63ffffffff is the largest canonical coefficient.
        let nonCanonical = coefficientHigh > 0x0001_ed09_bead_87c0
            || (coefficientHigh == 0x0001_ed09_bead_87c0 && low > 0x378d_8e63_ffff_ffff)
            || steering
        let digits = nonCanonical ? "0" : Self.decimalDigits(high: coefficientHigh, low: low)
        let exponentText = exponent < 0 ? "-\(-exponent)" : "+\(exponent)"
        return signChar + digits + "E" + exponentText
    }

    /// The decimal digits of the 128-bit unsigned integer `high·2⁶⁴ + low`.
    static func decimalDigits(high: UInt64, low: UInt64) -> String {
        if high == 0 { return String(low) }
        var hi = high
        var lo = low
        var chunks: [UInt64] = []  // base 10^18, least significant first
        let base: UInt64 = 1_000_000_000_000_000_000
        while hi != 0 || lo != 0 {
            // Divide (hi, lo) by base.
            let qHigh = hi / base
            let remHigh = hi % base
            let (qLow, remainder) = base.dividingFullWidth((high: remHigh, low: lo))
            chunks.append(remainder)
            hi = qHigh
            lo = qLow
        }
        var text = String(chunks.last ?? 0)
        for chunk in chunks.dropLast().reversed() {
            let part = String(chunk)
            text += String(repeating: "0", count: 18 - part.count) + part
        }
        return text
    }
}
