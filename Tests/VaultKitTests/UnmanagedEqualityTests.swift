import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Unmanaged collections compare by contents, as Realm's do (realm-swift's
// testUnmanagedListComparison, testUnmanagedSetComparison and
// testUnmanagedMapComparison); managed ones are equal when they are the same
// collection, and a managed collection never equals an unmanaged one.

final class UEItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var items: List<UEItem>
    @Persisted var numbers: List<Int>
}

@Suite("Collection equality: unmanaged by contents, managed by identity")
struct UnmanagedEqualityTests {
    private func makeObjects() -> [UEItem] {
        (5...7).map { id in let item = UEItem(); item.id = id; return item }
    }

    @Test("lists: equal with the same objects in the same order (realm-swift's test)")
    func lists() {
        let objects = makeObjects()
        let list1 = List<UEItem>(), list2 = List<UEItem>()
        #expect(list1 == list2, "empty lists are equal")
        list1.append(objectsIn: objects)
        list2.append(objectsIn: objects)
        let list3 = List<UEItem>()
        list3.append(objectsIn: objects.prefix(2))
        #expect(list1 !== list2)
        #expect(list1 == list2 && list1 != list3)
        #expect(list1.isEqual(list2) && !list1.isEqual(list3) && !list1.isEqual("a list"))
        list3.append(objects[2])
        #expect(list1 == list3)
        let reversed = List<UEItem>()
        reversed.append(objectsIn: objects.reversed())
        #expect(list1 != reversed, "order matters")
        let lookalike = List<UEItem>()
        lookalike.append(objectsIn: makeObjects())
        #expect(list1 != lookalike, "distinct unmanaged objects with the same values are not the same object")
        let numbers = List<Int>(), same = List<Int>()
        numbers.append(objectsIn: [1, 2, 3])
        same.append(objectsIn: [1, 2, 3])
        #expect(numbers == same)
        same.append(4)
        #expect(numbers != same)
    }

    @Test("sets: equal with the same members in any order (realm-swift's test)")
    func sets() {
        let objects = makeObjects()
        let set1 = MutableSet<UEItem>(), set2 = MutableSet<UEItem>()
        #expect(set1 == set2)
        set1.insert(objectsIn: objects)
        set2.insert(objectsIn: objects.reversed())
        let set3 = MutableSet<UEItem>()
        set3.insert(objectsIn: objects.prefix(2))
        #expect(set1 == set2 && set1 != set3)
        #expect(set1.isEqual(set2) && !set1.isEqual(set3))
        set3.insert(objects[2])
        #expect(set1 == set3)
        let strings = MutableSet<String>(), others = MutableSet<String>()
        strings.insert(objectsIn: ["a", "b"])
        others.insert(objectsIn: ["b", "a"])
        #expect(strings == others)
    }

    @Test("maps: equal with the same keys holding equal values (realm-swift's test)")
    func maps() {
        let objects = makeObjects()
        let map1 = Map<String, UEItem?>(), map2 = Map<String, UEItem?>()
        #expect(map1 == map2)
        let entries = ["obj": objects[0], "obj2": objects[1], "obj3": objects[2]]
        map1.merge(entries.mapValues { Optional($0) })
        map2.merge(entries.mapValues { Optional($0) })
        let map3 = Map<String, UEItem?>()
        map3.merge(["obj": objects[0], "obj2": objects[1]].mapValues { Optional($0) })
        #expect(map1 == map2 && map1 != map3)
        #expect(map1.isEqual(map2) && !map1.isEqual(map3))
        map3["obj3"] = objects[2]
        #expect(map1 == map3)
        map3["obj3"] = .some(nil)
        #expect(map1 != map3, "a nil value is not the object")
        let scores = Map<String, Int>(), same = Map<String, Int>()
        scores["a"] = 1
        same["a"] = 1
        #expect(scores == same)
        same["a"] = 2
        #expect(scores != same)
    }

    @Test("managed collections: the same collection only, never an unmanaged one with the same contents")
    func managed() throws {
        let directory = try TemporaryDirectory("unmanaged-equality")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("items.vault"), encryptionKey: testKey, objectTypes: [UEItem.self]))
        try vault.write {
            vault.create(UEItem.self, value: ["id": 1, "numbers": [1, 2]])
            vault.create(UEItem.self, value: ["id": 2, "numbers": [1, 2]])
        }
        let first = try #require(vault.object(ofType: UEItem.self, forPrimaryKey: 1))
        let again = try #require(vault.object(ofType: UEItem.self, forPrimaryKey: 1))
        let second = try #require(vault.object(ofType: UEItem.self, forPrimaryKey: 2))
        #expect(first.numbers == again.numbers, "the same owner and property")
        #expect(first.numbers != second.numbers, "another owner's list, with the same contents")
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [1, 2])
        #expect(first.numbers != unmanaged && unmanaged != first.numbers)
    }
}
