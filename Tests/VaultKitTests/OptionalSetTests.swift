import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// A set holds nil at most once, as Realm's does (realm-swift's
// ManagedPrimitiveMutableSetTests.testFormUnion for optional element types):
// SQLite's UNIQUE constraint admits any number of NULLs, so this is checked
// by the insert itself.

final class OptionalSets: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: MutableSet<Int?>
    @Persisted var names: MutableSet<String?>
    @Persisted var mixed: MutableSet<AnyVaultValue>
}

@Suite("Sets of optional values")
struct OptionalSetTests {
    @Test("nil is kept once, through insert, formUnion, add and create; removing it removes it", arguments: StorageMode.writable)
    func nilOnce(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("optional-sets")
        let vault = try Vault(configuration: mode.configuration(directory, types: [OptionalSets.self]))
        let object = OptionalSets(value: ["id": 1])
        object.numbers.insert(objectsIn: [1, nil, 2])
        object.names.insert(nil)
        try vault.write { vault.add(object) }
        #expect(object.numbers.count == 3)

        try vault.write {
            object.numbers.insert(nil)
            object.numbers.formUnion([nil, 3, nil])
            object.names.insert(objectsIn: [nil, "a", nil, "a"])
            object.mixed.insert(objectsIn: [.none, .int(1), .none, .string("s"), .int(1)])
        }
        #expect(object.numbers.count == 4)
        #expect(Set(object.numbers) == [1, 2, 3, nil])
        #expect(object.names.count == 2)
        #expect(object.mixed.count == 3)
        #expect(object.numbers.contains(nil))

        try vault.write { object.numbers.remove(nil) }
        #expect(object.numbers.count == 3 && !object.numbers.contains(nil))
        try vault.write { object.numbers.insert(nil) }
        #expect(object.numbers.count == 4)

        // The rule holds for another owner independently, and through create's update.
        try vault.write {
            vault.create(OptionalSets.self, value: ["id": 2, "numbers": [nil, nil, 5]])
            vault.create(OptionalSets.self, value: ["id": 1, "names": [nil, "b"]], update: .modified)
        }
        #expect(vault.object(ofType: OptionalSets.self, forPrimaryKey: 2)?.numbers.count == 2)
        #expect(Set(object.names) == [nil, "a", "b"])
        // As the stored rows count them, not only as the accessor sees them.
        let rows = try vault.rawCount(of: object.numbers)
        #expect(rows == 4)
    }
}

extension Vault {
    /// The stored entries of a managed set, counted in its side table.
    fileprivate func rawCount<Element>(of set: MutableSet<Element>) throws -> Int {
        guard let binding = set.binding else { return set.count }
        let table = binding.owner.collectionTableName(for: binding.owner.properties[binding.propertyIndex])
        return try withDatabase { db in
            Int(try db.fetchOne("SELECT count(*) FROM \(table) WHERE \"_vk_owner\" = ?", arguments: [.integer(binding.ownerRowID)])?[0].int64 ?? -1)
        }
    }
}
