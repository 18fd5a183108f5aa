/// Widening of the narrow decimal encodings that format 24's variable-width
/// Decimal128 leaves use (realm-core `array_decimal128.cpp`: a leaf stores
/// BID32, BID64 or BID128 values, whichever fits all of its elements) to BID128,
/// following the rules of the Intel library's `bid32_to_bid128` and
/// `bid64_to_bid128`, including Realm's own null patterns
/// (`DECIMAL_NULL_32`/`_64` in `decimal128.hpp`).
enum DecimalWidening {
    static let null32: UInt32 = 0x7c00_00aa
    static let null64: UInt64 = 0x7c00_0000_0000_00aa

    /// Whether `x` is a canonical BID32 encoding: an infinity or NaN, or a finite value whose
    /// coefficient is below 10⁷ (only the "11" form, whose coefficient is 2²³ or more, can
    /// exceed it; IEEE 754-2008 §3.5.2 reads such a coefficient as zero).
    static func isCanonical(bid32 x: UInt32) -> Bool {
        if x & 0x7800_0000 == 0x7800_0000 { return true }
        if x & 0x6000_0000 == 0x6000_0000 { return (x & 0x001f_ffff) | 0x0080_0000 < 10_000_000 }
        return true
    }

    /// Whether `x` is a canonical BID64 encoding (coefficient below 10¹⁶; see `isCanonical(bid32:)`).
    static func isCanonical(bid64 x: UInt64) -> Bool {
        if x & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 { return true }
        if x & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            return (x & 0x0007_ffff_ffff_ffff) | 0x0020_0000_0000_0000 < 10_000_000_000_000_000
        }
        return true
    }

    /// BID32 → BID128.
    static func widen(bid32 x: UInt32) -> RealmDecimal128 {
        if x == null32 { return .null }
        let sign = UInt64(x & 0x8000_0000) << 32
        if x & 0x7800_0000 == 0x7800_0000 {
            // NaN or infinity: keep the special bits, scale the payload by 10^27.
            var coefficient = x & 0xfe0f_ffff
            if x & 0x000f_ffff >= 1_000_000 { coefficient = x & 0xfe00_0000 }
            if x & 0x7c00_0000 == 0x7800_0000 { coefficient = x & 0xf800_0000 }
            let payload = UInt64(coefficient & 0x000f_ffff)
            let (high, low) = multiplyByTenToThe27(payload)
            let special = (UInt64(coefficient) << 32) & 0xfc00_0000_0000_0000
            return RealmDecimal128(low: low, high: high | special)
        }
        var exponent: UInt32
        var coefficient: UInt32
        if x & 0x6000_0000 == 0x6000_0000 {
            coefficient = (x & 0x001f_ffff) | 0x0080_0000
            if coefficient >= 10_000_000 { coefficient = 0 }
            exponent = (x >> 21) & 0xff
        } else {
            coefficient = x & 0x007f_ffff
            exponent = (x >> 23) & 0xff
        }
        let biased = UInt64(Int(exponent) + RealmDecimal128.exponentBias - 101)
        return RealmDecimal128(low: UInt64(coefficient), high: sign | (biased << 49))
    }

    /// BID64 → BID128.
    static func widen(bid64 x: UInt64) -> RealmDecimal128 {
        if x == null64 { return .null }
        let sign = x & 0x8000_0000_0000_0000
        if x << 1 >= 0xf000_0000_0000_0000 {
            var coefficient = x & 0xfe03_ffff_ffff_ffff
            if x & 0x0003_ffff_ffff_ffff >= 1_000_000_000_000_000 { coefficient = x & 0xfe00_0000_0000_0000 }
            if x & 0x7c00_0000_0000_0000 == 0x7800_0000_0000_0000 { coefficient = x & 0xf800_0000_0000_0000 }
            let payload = coefficient & 0x0003_ffff_ffff_ffff
            let product = payload.multipliedFullWidth(by: 1_000_000_000_000_000_000)
            return RealmDecimal128(low: product.low, high: product.high | (coefficient & 0xfc00_0000_0000_0000))
        }
        var exponent: UInt64
        var coefficient: UInt64
        if x & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            coefficient = (x & 0x0007_ffff_ffff_ffff) | 0x0020_0000_0000_0000
            if coefficient >= 10_000_000_000_000_000 { coefficient = 0 }
            exponent = (x >> 51) & 0x3ff
        } else {
            coefficient = x & 0x001f_ffff_ffff_ffff
            exponent = (x >> 53) & 0x3ff
        }
        let biased = UInt64(Int(exponent) + RealmDecimal128.exponentBias - 398)
        return RealmDecimal128(low: coefficient, high: sign | (biased << 49))
    }

    /// `value × 10^27` as a 128-bit (high, low) pair; `value` < 2^20 so the product fits.
    private static func multiplyByTenToThe27(_ value: UInt64) -> (high: UInt64, low: UInt64) {
        // 10^27 = 10^18 × 10^9; value × 10^9 < 2^50 fits in 64 bits.
        let scaled = value &* 1_000_000_000
        let product = scaled.multipliedFullWidth(by: 1_000_000_000_000_000_000)
        return (product.high, product.low)
    }
}
