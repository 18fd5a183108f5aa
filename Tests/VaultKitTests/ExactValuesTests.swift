import Foundation
import Testing
import VaultCore
import VaultTestSupport
@_spi(Interchange) @testable import VaultKit

final class Measurement: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var reading = 0.0
    @Persisted var maybe: Double?
    @Persisted var ratio: Float = 0
    @Persisted var series: List<Double>
    @Persisted var samples: MutableSet<Float>
    @Persisted var any: AnyVaultValue
    @Persisted var price = Decimal128()
    @Persisted var taken = Date()
}

/// Values SQLite cannot hold as they are — NaN, decimals with their exponent, dates to the
/// nanosecond — stored and read back exactly.
@Suite("Exact values: NaN, Realm's decimal text, nanosecond dates")
struct ExactValuesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("exact-values") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("m.vault"), encryptionKey: testKey, objectTypes: [Measurement.self]))
    }

    @Test func nanIsAValueNotNil() throws {
        let vault = try openVault()
        let negativeNaN = -Double.nan
        try vault.write {
            let m = Measurement()
            m.id = 1
            m.reading = .nan
            m.maybe = negativeNaN
            m.ratio = .nan
            m.series.append(objectsIn: [1, .nan, .infinity])
            m.samples.insert(.nan)
            m.any = .double(.nan)
            vault.add(m)
            let other = Measurement()
            other.id = 2
            vault.add(other)
        }
        let reopened = try openVault()
        let m = try #require(reopened.object(ofType: Measurement.self, forPrimaryKey: 1))
        #expect(m.reading.isNaN)
        #expect(m.maybe?.isNaN == true && m.maybe?.sign == .minus)
        #expect(m.ratio.isNaN)
        #expect(m.series.count == 3 && m.series[1].isNaN && m.series[2] == .infinity)
        #expect(m.samples.count == 1 && m.samples.first?.isNaN == true)
        #expect(m.any.doubleValue?.isNaN == true)
        let other = try #require(reopened.object(ofType: Measurement.self, forPrimaryKey: 2))
        #expect(other.maybe == nil && other.reading == 0)
        #expect(reopened.objects(Measurement.self).filter("maybe == nil").map(\.id) == [2])
    }

    @Test func decimalsKeepRealmsSpelling() throws {
        // Realm's stringValue trims the fraction's trailing zeros (RLMDecimal128, CodableTests.testDecimal);
        // the exact text is what is stored.
        #expect(try Decimal128(string: "1.50").stringValue == "1.5")
        #expect(try Decimal128(string: "1.50").exactText == "1.50")
        #expect(try Decimal128(string: "-23280291.00").stringValue == "-23280291")
        #expect(try Decimal128(string: "-23280291.00").description == "-23280291")
        #expect(try Decimal128(string: "1234567890e123").stringValue == "1.23456789E132")
        #expect(try Decimal128(string: "1.5e3").stringValue == "1.5E3")
        #expect(try Decimal128(string: "0.005").stringValue == "5E-3")
        #expect(try Decimal128(string: "100").stringValue == "100" && Decimal128.trimmingFractionZeros("1.000E5") == "1E5")
        #expect(try Decimal128(string: "1.50") == Decimal128(string: "1.5"))
        #expect(Decimal128(1.5).stringValue == "1.5")
        let vault = try openVault()
        try vault.write {
            let m = Measurement()
            m.id = 1
            m.price = try Decimal128(string: "19.90")
            m.any = .decimal128(try Decimal128(string: "2.500"))
            vault.add(m)
        }
        let m = try #require(try openVault().object(ofType: Measurement.self, forPrimaryKey: 1))
        #expect(m.price.stringValue == "19.9" && m.price.exactText == "19.90", "stored exactly, shown as Realm shows it")
        #expect(m.any.decimal128Value?.stringValue == "2.5" && m.any.decimal128Value?.exactText == "2.500")
        // Compared by value: 19.9 finds 19.90.
        #expect(vault.objects(Measurement.self).filter("price == %@", Decimal128(19.9)).count == 1)
    }

    @Test func timestampsRoundTripThroughTheStoredDouble() {
        // Whole microseconds come back from the Double alone.
        for seconds in stride(from: Int64(-2_208_988_800), through: 4_102_444_800, by: 86_399_999) {
            for micros in [0, 1, 999_999, 123_456] {
                let timestamp = VaultTimestamp(seconds: seconds, nanoseconds: Int32(micros * 1000))
                #expect(VaultTimestamp(storedValue: timestamp.storedValue) == timestamp, "\(timestamp)")
            }
        }
        // A stored Double more than ~4 months from 2001 (where a Double is coarser than a
        // nanosecond) gives a timestamp that converts back to exactly that Double; nearer
        // ones give the nearest nanosecond, and converting that again changes nothing.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let stored = Double.random(in: -4e9...4e9, using: &generator)
            let timestamp = VaultTimestamp(storedValue: stored)
            if abs(stored) >= 1e7 { #expect(timestamp.storedValue == stored) }
            #expect(VaultTimestamp(storedValue: timestamp.storedValue) == timestamp)
            #expect((0..<1_000_000_000).contains(timestamp.nanoseconds))
        }
        #expect(VaultTimestamp(seconds: -2, nanoseconds: 1_500_000_000) == VaultTimestamp(seconds: -1, nanoseconds: 500_000_000))
        #expect(VaultTimestamp(seconds: 0, nanoseconds: -1) == VaultTimestamp(seconds: -1, nanoseconds: 999_999_999))
        #expect(VaultTimestamp(storedValue: .nan) == VaultTimestamp(seconds: 0, nanoseconds: 0))
    }
}
