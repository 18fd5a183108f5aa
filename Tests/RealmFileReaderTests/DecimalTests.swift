import Testing
@testable import RealmFileReader

/// `RealmDecimal128.description` against the forms of realm-core's `Decimal128::to_string`
/// (`decimal128.cpp`), and the BID32/BID64 widening of format 24's narrow decimal leaves.
@Suite("Decimal128")
struct DecimalTests {
    private static func decimal(_ coefficient: UInt64, exponent: Int, negative: Bool = false) -> RealmDecimal128 {
        let biased = UInt64(exponent + 6176)
        return RealmDecimal128(low: coefficient, high: (negative ? 1 << 63 : 0) | biased << 49)
    }

    @Test(arguments: [
        (UInt64(4_006_962_907), -2, false, "40069629.07"),
        (UInt64(5_396_831_908), -2, true, "-53968319.08"),
        (UInt64(0), 0, false, "0"),
        (UInt64(0), -3, false, "0E-3"),
        (UInt64(1), 3, false, "1E3"),
        (UInt64(15), -8, false, "1.5E-7"),
        (UInt64(123), -5, false, "1.23E-3"),
        (UInt64(123), -2, false, "1.23"),
        (UInt64(7), 0, true, "-7"),
        (UInt64.max, 0, false, "18446744073709551615"),
        (UInt64.max, -4, false, "1844674407370955.1615"),
    ])
    func toStringForms(coefficient: UInt64, exponent: Int, negative: Bool, expected: String) {
        #expect(Self.decimal(coefficient, exponent: exponent, negative: negative).description == expected)
    }

    @Test func specialValues() {
        #expect(RealmDecimal128(low: 0, high: 0x7c00_0000_0000_0000).description == "NaN")
        #expect(RealmDecimal128(low: 0, high: 0x7800_0000_0000_0000).description == "Inf")
        #expect(RealmDecimal128(low: 0, high: 0xf800_0000_0000_0000).description == "-Inf")
        #expect(RealmDecimal128(low: 0, high: 0xfc00_0000_0000_0000).description == "-NaN")
        #expect(RealmDecimal128.null.isRealmNull)
    }

    @Test func wideCoefficientsUseTheIntelForm() {
        // 10^20 = 0x5_6BC7_5E2D_6310_0000: the high word holds coefficient bits.
        let value = RealmDecimal128(low: 0x6BC7_5E2D_6310_0000, high: 5 | UInt64(6176 - 5) << 49)
        #expect(value.description == "+100000000000000000000E-5")
        let negative = RealmDecimal128(low: 0x6BC7_5E2D_6310_0000, high: 1 << 63 | 5 | UInt64(6176 + 12) << 49)
        #expect(negative.description == "-100000000000000000000E+12")
        #expect(RealmDecimal128.decimalDigits(high: 0x0001_ed09_bead_87c0, low: 0x378d_8e63_ffff_ffff)
            == "9999999999999999999999999999999999")
    }

    @Test func bid32Widening() {
        #expect(DecimalWidening.widen(bid32: 101 << 23 | 1) == Self.decimal(1, exponent: 0))
        #expect(DecimalWidening.widen(bid32: 1 << 31 | 99 << 23 | 12345) == Self.decimal(12345, exponent: -2, negative: true))
        // The large-coefficient encoding (steering bits 11).
        let large: UInt32 = 0x6000_0000 | 101 << 21 | 0x0001_2345
        #expect(DecimalWidening.widen(bid32: large) == Self.decimal(0x0081_2345, exponent: 0))
        #expect(DecimalWidening.widen(bid32: 0x7c00_00aa).isRealmNull)
        #expect(DecimalWidening.widen(bid32: 0x7800_0000).description == "Inf")
        #expect(DecimalWidening.widen(bid32: 0x7c00_0000).description == "NaN")
    }

    @Test func bid64Widening() {
        #expect(DecimalWidening.widen(bid64: 396 << 53 | 4_006_962_907) == Self.decimal(4_006_962_907, exponent: -2))
        #expect(DecimalWidening.widen(bid64: 396 << 53 | 4_006_962_907).description == "40069629.07")
        #expect(DecimalWidening.widen(bid64: 0x7c00_0000_0000_00aa).isRealmNull)
        #expect(DecimalWidening.widen(bid64: 0xf800_0000_0000_0000).description == "-Inf")
    }
}
