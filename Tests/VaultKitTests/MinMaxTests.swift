import Foundation
import Testing
import VaultTestSupport
import VaultKit

// Realm's min() and max() on collections of values, optional elements included.

final class MMHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var optionalInts: List<Int?>
    @Persisted var dates: MutableSet<Date>
    @Persisted var scores: Map<String, Double?>
    @Persisted var prices: List<Decimal128>
}

@Suite("min() and max() on value collections")
struct MinMaxTests {
    @Test("managed and unmanaged: nil elements and NaN skipped, nil when nothing is left", arguments: [false, true])
    func extremes(managed: Bool) throws {
        let directory = try TemporaryDirectory("minmax")
        let holder = MMHolder(value: ["id": 1])
        let early = Date(timeIntervalSince1970: -86_400), late = Date(timeIntervalSince1970: 1_700_000_000)
        holder.ints.append(objectsIn: [5, -3, 12])
        holder.optionalInts.append(objectsIn: [nil, 4, nil, -8])
        holder.dates.insert(late)
        holder.dates.insert(early)
        holder.scores["a"] = .some(.nan)
        holder.scores["b"] = 2.5
        holder.scores["c"] = nil
        holder.scores["d"] = -1
        holder.prices.append(objectsIn: [Decimal128(10), Decimal128(-2)])
        var vault: Vault?
        if managed {
            let opened = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [MMHolder.self]))
            try opened.write { opened.add(holder) }
            vault = opened
        }
        #expect(holder.ints.min() == -3 && holder.ints.max() == 12)
        #expect(holder.optionalInts.min() == -8 && holder.optionalInts.max() == 4)
        #expect(holder.dates.min() == early && holder.dates.max() == late)
        #expect(holder.scores.min() == -1 && holder.scores.max() == 2.5, "NaN and nil are skipped")
        #expect(holder.prices.min() == Decimal128(-2) && holder.prices.max() == Decimal128(10))
        let empty = MMHolder()
        #expect(empty.ints.min() == nil && empty.optionalInts.max() == nil && empty.scores.min() == nil)
        withExtendedLifetime(vault) {}
    }
}
