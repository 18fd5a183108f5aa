import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

/// A URL stored as its string (Realm's documented example).
struct Homepage: CustomPersistable, Equatable {
    let url: URL
    init(_ text: String) { url = URL(string: text) ?? URL(fileURLWithPath: "/") }
    init(persistedValue: String) { self.init(persistedValue) }
    var persistableValue: String { url.absoluteString }
}

/// A temperature that refuses stored values below absolute zero.
struct Kelvin: FailableCustomPersistable, Equatable {
    let value: Double
    init?(persistedValue: Double) {
        guard persistedValue >= 0 else { return nil }
        value = persistedValue
    }
    var persistableValue: Double { value }
}

final class Station: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var homepage: Homepage?
    @Persisted var mirrors: List<Homepage>
    @Persisted var reading: Kelvin?
    @Persisted var price = Decimal128()
    @Persisted var fees: List<Decimal128>
    @Persisted var optionalPrice: Decimal128?
}

@Suite("Custom persistable types and Decimal128")
struct CustomTypesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("custom-types") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("stations.vault"), encryptionKey: testKey, objectTypes: [Station.self]))
    }

    @Test("custom types round-trip in properties and lists and are queried by their persisted value; a failed conversion reads as nil")
    func customPersistable() throws {
        let vault = try openVault()
        try vault.write {
            for id in 1...3 {
                let station = Station()
                station.id = id
                station.homepage = Homepage("https://example.org/\(id)")
                station.mirrors.append(objectsIn: [Homepage("https://a.example/\(id)"), Homepage("https://b.example/\(id)")])
                station.reading = Kelvin(persistedValue: Double(id) * 100)
                vault.add(station)
            }
        }
        let two = try #require(vault.object(ofType: Station.self, forPrimaryKey: 2))
        #expect(two.homepage == Homepage("https://example.org/2") && two.mirrors.map(\.url.host) == ["a.example", "b.example"])
        #expect(vault.objects(Station.self).filter("homepage == %@", Homepage("https://example.org/3")).map(\.id) == [3])
        #expect(vault.objects(Station.self).filter("reading > %@", Kelvin(persistedValue: 150) as Any).map(\.id) == [2, 3])
        #expect(vault.objects(Station.self).filter("ANY mirrors == %@", "https://b.example/1").map(\.id) == [1])

        // A stored value the type refuses (written through the dynamic API): nil for the optional property.
        try vault.write { two["reading"] = -5.0 }
        #expect(two.reading == nil)
    }

    @Test("Decimal128: Realm's API, exact storage, numeric comparison and sorting, strict parsing")
    func decimal128() throws {
        let vault = try openVault()
        let prices: [Decimal128] = ["10.5", "9.95", "100", "-0.001"]
        try vault.write {
            for (index, price) in prices.enumerated() {
                let station = Station()
                station.id = index + 1
                station.price = price
                station.fees.append(objectsIn: [price, price * 2])
                vault.add(station)
            }
        }
        let sorted = vault.objects(Station.self).sorted(byKeyPath: "price").map(\.price)
        #expect(sorted == ["-0.001", "9.95", "10.5", "100"], "numeric order, not text order")
        #expect(vault.objects(Station.self).filter("price > %@", Decimal128(10)).count == 2)
        #expect(vault.objects(Station.self).max(ofProperty: "price") as Decimal128? == "100")
        #expect(try #require(vault.object(ofType: Station.self, forPrimaryKey: 2)).fees.map(\.stringValue) == ["9.95", "19.9"])
        let parsed = try Decimal128(string: "1.25e2"), fromValue = try Decimal128(value: "7"), nan = try Decimal128(string: "NaN")
        #expect(parsed == 125 && Decimal128(number: 2.5) == "2.5" && fromValue == 7)
        #expect(throws: VaultObjectError.self) { try Decimal128(string: "12abc") }
        #expect(throws: VaultObjectError.self) { try Decimal128(string: "") }
        #expect(Decimal128.nan.isNaN && nan.isNaN && !Decimal128(1).isNaN)
        #expect((Decimal128(1) / 3 * 3).doubleValue > 0.99 && Decimal128("0.1") + Decimal128("0.2") == Decimal128("0.3"))
    }

    @Test("custom types are Hashable as Realm's are: they hash as their persisted value and go in Swift sets and dictionaries")
    func customTypesHash() throws {
        let a = Homepage("https://a.example/")
        let same = Homepage(persistedValue: "https://a.example/")
        #expect(a == same && a.hashValue == same.hashValue)
        #expect(a.hashValue == "https://a.example/".hashValue, "the persisted value's hash")
        #expect(Set([a, same, Homepage("https://b.example/")]).count == 2)
        let readings = [Kelvin(persistedValue: 1.5), Kelvin(persistedValue: 1.5), Kelvin(persistedValue: 3)].compactMap { $0 }
        #expect(Set(readings).count == 2)
        #expect([a: "first"][same] == "first")
    }
}
