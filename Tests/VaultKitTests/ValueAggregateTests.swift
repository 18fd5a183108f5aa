import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class AggHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var optionalDoubles: List<Double?>
    @Persisted var decimals: MutableSet<Decimal128>
    @Persisted var mixed: List<AnyVaultValue>
    @Persisted var prices: Map<String, Double>
}

@Suite("sum(), average(), min() and max() of value collections (Realm's AddableType and MinMaxType)")
struct ValueAggregateTests {
    @Test("unmanaged and managed collections give the same sums and averages; nil and non-numbers are skipped")
    func sumsAndAverages() throws {
        let directory = try TemporaryDirectory("aggregates")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: testKey, objectTypes: [AggHolder.self]))
        let holder = AggHolder()
        #expect(holder.ints.sum() == 0 && (holder.ints.average() as Double?) == nil)
        #expect(holder.mixed.sum() == .int(0), "an empty unmanaged mixed list sums to .int(0), as Realm's")
        holder.ints.append(objectsIn: [1, 2, 3, 4])
        holder.optionalDoubles.append(objectsIn: [1.5, nil, 2.5])
        holder.decimals.insert(objectsIn: [Decimal128(1), Decimal128(2.5)])
        holder.mixed.append(objectsIn: [.int(1), .double(2.5), .float(0.5), .string("x"), .none, .decimal128(Decimal128(1))])
        holder.prices["a"] = 10
        holder.prices["b"] = 20
        func check(_ holder: AggHolder) {
            #expect(holder.ints.sum() == 10 && (holder.ints.average() as Double?) == 2.5)
            #expect(holder.optionalDoubles.sum() == 4.0 && (holder.optionalDoubles.average() as Double?) == 2.0)
            #expect(holder.decimals.sum() == Decimal128(3.5) && (holder.decimals.average() as Decimal128?) == Decimal128(1.75))
            #expect(holder.mixed.sum()._vaultDecimalValue == 5 && (holder.mixed.average() as Double?) == 1.25)
            #expect(holder.prices.sum() == 30 && (holder.prices.average() as Double?) == 15)
            #expect(holder.mixed.min() == .float(0.5) && holder.mixed.max() == .string("x"), "Realm's mixed order: numbers before strings")
            #expect(holder.ints.min() == 1 && holder.ints.max() == 4)
        }
        check(holder)
        try vault.write { vault.add(holder) }
        let managed = try #require(vault.object(ofType: AggHolder.self, forPrimaryKey: 0))
        check(managed)
        #expect(managed.mixed.sum() == .decimal128(Decimal128(5)), "a managed mixed sum is a Decimal128 (realm-core's type)")
    }
}
