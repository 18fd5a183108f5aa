import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// `sorted(ascending:)` and `distinct()` on collections of values, as
// realm-swift's PrimitiveListTests, PrimitiveMutableSetTests and
// PrimitiveMapTests call them (`Array(list.sorted(ascending: true))`).

final class VSHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
    @Persisted var names: List<String?>
    @Persisted var days: MutableSet<Date>
    @Persisted var prices: Map<String, Double>
    @Persisted var anything: List<AnyVaultValue>
}

@Suite("Sorting and distinct on collections of values")
struct ValueSortingTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("value-sorting")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("v.vault"), encryptionKey: testKey, objectTypes: [VSHolder.self]))
    }

    private func holder(managed: Bool) throws -> VSHolder {
        let holder = VSHolder(value: ["id": 1])
        holder.numbers.append(objectsIn: [3, 1, 2, 3, 1])
        holder.names.append(objectsIn: ["b", nil, "a", "B", "é", "a"])
        holder.days.insert(objectsIn: [Date(timeIntervalSince1970: 30), Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 20)])
        holder.prices["x"] = 2.5
        holder.prices["y"] = -1
        holder.prices["z"] = 10
        holder.anything.append(objectsIn: [.int(3), .double(1.5), .float(2.5), .decimal128(Decimal128(0.5)), .none])
        guard managed else { return holder }
        try vault.write { vault.add(holder) }
        return try #require(vault.object(ofType: VSHolder.self, forPrimaryKey: 1))
    }

    @Test("ascending and descending, managed and unmanaged; equal values keep their order; nil first; strings by UTF-8 bytes",
          arguments: [false, true])
    func sorting(managed: Bool) throws {
        let holder = try holder(managed: managed)
        #expect(Array(holder.numbers.sorted(ascending: true)) == [1, 1, 2, 3, 3])
        #expect(holder.numbers.sorted(ascending: false) == [3, 3, 2, 1, 1])
        #expect(holder.names.sorted(ascending: true) == [nil, "B", "a", "a", "b", "é"])
        #expect(holder.names.sorted(ascending: false) == ["é", "b", "a", "a", "B", nil])
        #expect(holder.days.sorted().map(\.timeIntervalSince1970) == [10, 20, 30])
        #expect(Array(holder.prices.sorted()) == [-1, 2.5, 10] && holder.prices.sorted(ascending: false) == [10, 2.5, -1])
        // Numbers of every type in one order, by value (Realm's mixed order); nil first.
        #expect(holder.anything.sorted(ascending: true) == [.none, .decimal128(Decimal128(0.5)), .double(1.5), .float(2.5), .int(3)])
    }

    @Test("distinct keeps the first of each value, in collection order", arguments: [false, true])
    func distinctValues(managed: Bool) throws {
        let holder = try holder(managed: managed)
        #expect(Array(holder.numbers.distinct()) == [3, 1, 2])
        #expect(holder.names.distinct() == ["b", nil, "a", "B", "é"])
        #expect(holder.days.distinct().count == 3)
        holder.expectUnchanged()
    }
}

private extension VSHolder {
    /// Sorting reads the collection; it never changes it.
    func expectUnchanged() {
        #expect(Array(numbers) == [3, 1, 2, 3, 1])
    }
}
