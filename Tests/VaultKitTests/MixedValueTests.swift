import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// AnyVaultValue: storage, equality, live nested collections, links. Queries: MixedQueryTests.swift.

final class MxTarget: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class MxEmbedded: EmbeddedObject {
    @Persisted var note = ""
}

final class MxHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyVaultValue
    @Persisted var list: List<AnyVaultValue>
    @Persisted var map: Map<String, AnyVaultValue>
    @Persisted var set: MutableSet<AnyVaultValue>
    @Persisted var embedded: MxEmbedded?
}

/// An unmanaged target.
func mxTarget(_ id: Int, _ name: String) -> MxTarget {
    let target = MxTarget()
    target.id = id
    target.name = name
    return target
}

/// An unmanaged holder whose `value` is `value`.
private func holder(_ id: Int, _ value: AnyVaultValue = .none) -> MxHolder {
    let holder = MxHolder()
    holder.id = id
    holder.value = value
    return holder
}

/// The names of the accessors that give a value (exactly the value's own case, none for `.none`).
private func presentAccessors(_ value: AnyVaultValue) -> [String] {
    let present: [(String, Bool)] = [
        ("int", value.intValue != nil), ("bool", value.boolValue != nil), ("float", value.floatValue != nil),
        ("double", value.doubleValue != nil), ("string", value.stringValue != nil), ("data", value.dataValue != nil),
        ("date", value.dateValue != nil), ("object", value.object(Object.self) != nil), ("objectId", value.objectIdValue != nil),
        ("decimal128", value.decimal128Value != nil), ("uuid", value.uuidValue != nil),
        ("dictionary", value.dictionaryValue != nil), ("list", value.listValue != nil),
    ]
    return present.filter(\.1).map(\.0)
}

/// A value `levels` collections deep around `.int(7)`: lists and dictionaries
/// (key "k") alternating, the innermost (level 0) a list.
private func nested(_ levels: Int) -> AnyVaultValue {
    var value = AnyVaultValue.int(7)
    for level in 0..<levels {
        value = level.isMultiple(of: 2) ? .fromArray([value]) : .fromDictionary(["k": value])
    }
    return value
}

/// The collection at `level` of a value built by `nested(levels)`, walking down from the outermost.
private func descend(_ value: AnyVaultValue, levels: Int, to level: Int) throws -> AnyVaultValue {
    var current = value
    for outer in stride(from: levels - 1, to: level, by: -1) {
        current = try #require(outer.isMultiple(of: 2) ? current.listValue?.first : current.dictionaryValue?["k"], "level \(outer)")
    }
    return current
}

@Suite("AnyVaultValue")
struct MixedValueTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("mixed-values") }

    private func openVault() throws -> Vault {
        try Vault(configuration: Vault.Configuration(fileURL: directory.file("mixed.vault"), encryptionKey: testKey,
                                                     objectTypes: [MxHolder.self, MxTarget.self, MxEmbedded.self]))
    }

    @Test("every scalar case round-trips through a write and a reopened vault; only its own accessor gives a value")
    func scalarsRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.25)
        let objectId = ObjectId.generate(), uuid = UUID()
        // Each value with the one accessor that gives it ("" for .none).
        let scalars: [(value: AnyVaultValue, accessor: String)] = [
            (.none, ""), (.int(-42), "int"), (.int(0), "int"), (.int(Int.max), "int"), (.int(Int.min), "int"),
            (.bool(true), "bool"), (.bool(false), "bool"), (.float(-1.25), "float"), (.float(.greatestFiniteMagnitude), "float"),
            (.double(0.1), "double"), (.double(-1e300), "double"), (.double(.leastNonzeroMagnitude), "double"),
            (.string("héllo 🙂"), "string"), (.string(""), "string"), (.string("nul\u{0}inside"), "string"),
            (.string(String(repeating: "x", count: 5000)), "string"), (.data(Data([0, 1, 255])), "data"), (.data(Data()), "data"),
            (.data(Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) })), "data"), (.date(date), "date"),
            (.date(Date(timeIntervalSince1970: -1_000_000)), "date"), (.objectId(objectId), "objectId"),
            (.decimal128("123.456"), "decimal128"), (.decimal128("-0.001"), "decimal128"), (.uuid(uuid), "uuid"),
        ]
        do {
            let vault = try openVault()
            try vault.write {
                for (index, scalar) in scalars.enumerated() { vault.add(holder(index, scalar.value)) }
            }
        }
        let vault = try openVault()
        for (index, expected) in scalars.enumerated() {
            let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: index)).value
            #expect(stored == expected.value, "\(expected.value)")
            #expect(presentAccessors(stored) == (expected.accessor.isEmpty ? [] : [expected.accessor]), "\(expected.value)")
        }
        let values = try (0..<scalars.count).map { try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: $0)).value }
        #expect(values[1].intValue == -42 && values[3].intValue == Int.max && values[4].intValue == Int.min)
        #expect(values[5].boolValue == true && values[6].boolValue == false && values[7].floatValue == -1.25)
        #expect(values[10].doubleValue == -1e300 && values[12].stringValue == "héllo 🙂" && values[14].stringValue == "nul\u{0}inside")
        #expect(values[16].dataValue == Data([0, 1, 255]) && values[17].dataValue == Data() && values[19].dateValue == date)
        #expect(values[21].objectIdValue == objectId && values[22].decimal128Value == "123.456" && values[24].uuidValue == uuid)
        #expect(AnyVaultValue() == .none && MxHolder().value == .none, "the default is .none")
    }

    @Test("Swift equality is type-strict: .int(1) != .double(1); collections compare by contents, objects by identity")
    func typeStrictEquality() throws {
        #expect(AnyVaultValue.int(1) != .double(1) && AnyVaultValue.int(1) != .float(1) && AnyVaultValue.double(1) != .float(1))
        #expect(AnyVaultValue.int(1) != .decimal128(1) && AnyVaultValue.int(1) != .bool(true) && AnyVaultValue.int(0) != .bool(false))
        #expect(AnyVaultValue.int(0) != .none && AnyVaultValue.string("") != .none && AnyVaultValue.int(42) != .string("42"))
        #expect(AnyVaultValue.data(Data("a".utf8)) != .string("a") && AnyVaultValue.string("a") != .string("A"))
        #expect(AnyVaultValue.int(1) == .int(1) && AnyVaultValue.double(2.5) == .double(2.5) && AnyVaultValue.decimal128("1.5") == .decimal128("1.5"))

        // Collections: recursively by contents, type-strict inside too; lists ordered, dictionaries not.
        #expect(AnyVaultValue.fromArray([.int(1), .fromDictionary(["a": .string("x")])]) == .fromArray([.int(1), .fromDictionary(["a": .string("x")])]))
        #expect(AnyVaultValue.fromArray([.int(1)]) != .fromArray([.double(1)]))
        #expect(AnyVaultValue.fromArray([.int(1), .int(2)]) != .fromArray([.int(2), .int(1)]))
        #expect(AnyVaultValue.fromArray([.int(1)]) != .fromArray([.int(1), .int(1)]))
        #expect(AnyVaultValue.fromArray([]) != .fromDictionary([:]) && AnyVaultValue.fromArray([]) != .none)
        #expect(AnyVaultValue.fromArray([.fromArray([.int(1)])]) != .fromArray([.fromArray([.int(2)])]))
        #expect(AnyVaultValue.fromDictionary(["a": .int(1)]) != .fromDictionary(["a": .int(1), "b": .none]))
        #expect(AnyVaultValue.fromDictionary(["a": .int(1)]) != .fromDictionary(["b": .int(1)]))
        let forward = Map<String, AnyVaultValue>(), backward = Map<String, AnyVaultValue>()
        forward["a"] = .int(1)
        forward["b"] = .fromArray([.string("x")])
        backward["b"] = .fromArray([.string("x")])
        backward["a"] = .int(1)
        #expect(AnyVaultValue.dictionary(forward) == .dictionary(backward), "insertion order does not matter")

        // Objects: by identity of the object (the stored object once managed).
        let first = mxTarget(1, "same"), second = mxTarget(2, "same")
        #expect(AnyVaultValue.object(first) == .object(first) && AnyVaultValue.object(first) != .object(second))
        let vault = try openVault()
        try vault.write { vault.add(first) }
        let readOnce = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 1))
        let readTwice = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 1))
        #expect(AnyVaultValue.object(readOnce) == .object(readTwice), "two reads of one stored object")
        #expect(AnyVaultValue.object(readOnce) != .object(second))

        // Hashing agrees with equality.
        let hashed: Set<AnyVaultValue> = [.int(1), .double(1), .int(1), .string("1"), .bool(true), .none, .none]
        #expect(hashed.count == 5)
        #expect(Set<AnyVaultValue>([.object(readOnce), .object(readTwice)]).count == 1)
    }

    @Test("List, Map and MutableSet of AnyVaultValue keep every kind of element through a reopen")
    func collectionsRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1000.5), uuid = UUID()
        let elements: [AnyVaultValue] = [
            .int(1), .string("a"), .none, .double(2.5), .bool(false), .float(1.5), .data(Data([7])), .date(date),
            .decimal128("0.1"), .uuid(uuid), .fromArray([.int(1), .fromArray([])]), .fromDictionary(["k": .int(2), "n": .none]),
        ]
        let setElements: [AnyVaultValue] = [.int(1), .string("1"), .bool(true), .none, .double(2.5), .uuid(uuid)]
        do {
            let vault = try openVault()
            try vault.write {
                let stored = holder(1)
                let linked = mxTarget(1, "linked")
                stored.list.append(objectsIn: elements)
                stored.list.append(.object(linked))
                for (index, element) in elements.enumerated() { stored.map["e\(index)"] = element }
                stored.map["object"] = .object(linked)
                stored.set.insert(objectsIn: setElements)
                stored.set.insert(.object(linked))
                stored.set.insert(.int(1))
                vault.add(stored)
            }
        }
        let vault = try openVault()
        let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(vault.objects(MxTarget.self).count == 1, "one object, linked three times")
        #expect(stored.list.count == elements.count + 1)
        #expect(Array(stored.list.prefix(elements.count)) == elements)
        #expect(stored.list.last?.object(MxTarget.self)?.name == "linked")
        #expect(stored.map.count == elements.count + 1, "a stored .none keeps its key")
        for (index, element) in elements.enumerated() { #expect(stored.map["e\(index)"] == element, "e\(index)") }
        #expect(stored.map["e2"] == AnyVaultValue.none && stored.map["missing"] == nil)
        #expect(stored.map["object"]?.object(MxTarget.self)?.name == "linked")
        #expect(stored.set.count == setElements.count + 1, "the duplicate .int(1) is stored once")
        for element in setElements { #expect(stored.set.contains(element), "\(element)") }
        #expect(!stored.set.contains(.int(2)) && !stored.set.contains(.string("a")))
        #expect(stored.set.contains { $0.object(MxTarget.self)?.name == "linked" })

        // Editing keeps working after the reopen.
        try vault.write {
            stored.list.remove(at: 0)
            stored.list.insert(.string("first"), at: 0)
            stored.list[2] = .int(3)
            stored.map["e0"] = nil
            stored.map["e1"] = .fromArray([.bool(true)])
            stored.set.remove(.none)
        }
        let fresh = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(fresh.list[0] == .string("first") && fresh.list[1] == .string("a") && fresh.list[2] == .int(3))
        #expect(fresh.map["e0"] == nil && fresh.map["e1"] == .fromArray([.bool(true)]) && fresh.map.count == elements.count)
        #expect(fresh.set.count == setElements.count && !fresh.set.contains(.none))
    }

    @Test("nested lists and dictionaries round-trip through a reopen and read back level by level")
    func nestedRoundTrip() throws {
        let value = AnyVaultValue.fromDictionary([
            "key0": .fromDictionary(["key1": .fromArray([.int(1), .fromDictionary(["deep": .string("x")]), .fromArray([]), .none])]),
            "flag": .bool(true),
            "empty": .fromDictionary([:]),
            "list": .fromArray([.fromArray([.fromArray([.double(0.5)])])]),
        ])
        let listElements: [AnyVaultValue] = [.fromArray([.int(1), .fromDictionary(["a": .none])]), .fromDictionary([:]), .int(9)]
        let mapValue = AnyVaultValue.fromArray([.fromDictionary(["z": .int(26)])])
        do {
            let vault = try openVault()
            try vault.write {
                let stored = holder(1, value)
                stored.list.append(objectsIn: listElements)
                stored.map["n"] = mapValue
                vault.add(stored)
            }
        }
        let vault = try openVault()
        let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(stored.value == value)
        let key1 = try #require(stored.value.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue)
        #expect(key1.count == 4 && key1[0] == .int(1) && key1[1].dictionaryValue?["deep"] == .string("x"))
        #expect(key1[2].listValue?.isEmpty == true && key1[3] == AnyVaultValue.none)
        #expect(stored.value.dictionaryValue?["empty"]?.dictionaryValue?.isEmpty == true)
        #expect(stored.value.dictionaryValue?["list"]?.listValue?[0].listValue?[0].listValue?[0].doubleValue == 0.5)
        #expect(stored.value.dictionaryValue?.keys == ["empty", "flag", "key0", "list"])
        #expect(stored.value.dictionaryValue?["missing"] == nil && stored.value.listValue == nil && stored.value.intValue == nil)
        #expect(Array(stored.list) == listElements)
        #expect(stored.map["n"] == mapValue)

        // Replaced by a scalar and back; assigned to another object as a copy.
        try vault.write { stored.value = .int(3) }
        #expect(stored.value == .int(3) && stored.value.dictionaryValue == nil)
        try vault.write { stored.value = value }
        #expect(stored.value == value)
        try vault.write { vault.add(holder(2, stored.value)) }
        try vault.write { stored.value.dictionaryValue?["flag"] = .bool(false) }
        let copy = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 2))
        #expect(copy.value == value, "the copy does not follow later changes of the original")
        #expect(stored.value.dictionaryValue?["flag"] == .bool(false))
    }

    @Test("values nest 100 levels deep and round-trip; a 101st level makes the write throw")
    func nestingDepth() throws {
        do {
            let vault = try openVault()
            try vault.write { vault.add(holder(1, nested(100))) }
            #expect(throws: (any Error).self) {
                try vault.write { vault.add(holder(2, nested(101))) }
            }
            #expect(vault.object(ofType: MxHolder.self, forPrimaryKey: 2) == nil, "the failed write was rolled back")
            let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
            #expect(throws: (any Error).self) {
                try vault.write { stored.value = nested(101) }
            }
            // Growing the innermost live list by one more level fails the same way.
            let innermost = try #require(try descend(stored.value, levels: 100, to: 0).listValue)
            #expect(Array(innermost) == [.int(7)])
            #expect(throws: (any Error).self) {
                try vault.write { innermost.append(.fromArray([])) }
            }
            #expect(stored.value == nested(100))
        }
        let vault = try openVault()
        let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        let innermost = try descend(stored.value, levels: 100, to: 0)
        #expect(innermost == .fromArray([.int(7)]))
        #expect(innermost.listValue?.first == .int(7))
    }

    @Test("changes to live nested collections inside a write are stored: the object read again and queries see them")
    func liveNestedUpdates() throws {
        let vault = try openVault()
        try vault.write {
            vault.add(holder(1, .fromArray([.int(1), .fromDictionary(["k": .string("a"), "inner": .fromArray([.int(10)])])])))
            vault.add(holder(2, .fromArray([.int(1)])))
        }
        let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        try vault.write {
            stored.value.listValue?[0] = .int(5)
            stored.value.listValue?[1].dictionaryValue?["k"] = .string("x")
            stored.value.listValue?[1].dictionaryValue?["added"] = .double(2.5)
            stored.value.listValue?.append(.string("tail"))
            stored.value.listValue?[1].dictionaryValue?["inner"]?.listValue?.append(.int(11))
            stored.value.listValue?[1].dictionaryValue?["inner"]?.listValue?.insert(.int(9), at: 0)
        }
        let expected = AnyVaultValue.fromArray([
            .int(5), .fromDictionary(["k": .string("x"), "added": .double(2.5), "inner": .fromArray([.int(9), .int(10), .int(11)])]), .string("tail"),
        ])
        #expect(stored.value == expected, "the object read before the write")
        #expect(try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1)).value == expected)
        let holders = vault.objects(MxHolder.self)
        #expect(holders.filter("value[0] == 5 AND value[1]['k'] == 'x' AND value[1]['inner'][2] == 11 AND value[LAST] == 'tail'").map(\.id) == [1])
        #expect(holders.filter("value[1]['added'] == 2.5 AND value.@size == 3").map(\.id) == [1])
        #expect(holders.filter("value[0] == 1").map(\.id) == [2], "the other object is unchanged")

        // A live nested collection kept across writes keeps writing through.
        let inner = try #require(stored.value.listValue?[1].dictionaryValue?["inner"]?.listValue)
        try vault.write {
            inner.removeAll()
            stored.value.listValue?[1].dictionaryValue?["k"] = nil
            stored.value.listValue?.remove(at: 0)
        }
        let fresh = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(fresh.value == .fromArray([.fromDictionary(["added": .double(2.5), "inner": .fromArray([])]), .string("tail")]))
        #expect(holders.filter("value[0]['inner'].@size == 0 AND value[0]['k'] == nil").map(\.id) == [1])
        #expect(holders.filter("value[1]['k'] == 'x'").isEmpty)
    }

    @Test("nested collections inside List<AnyVaultValue> elements and Map<String, AnyVaultValue> values are live too")
    func liveNestedInCollectionElements() throws {
        do {
            let vault = try openVault()
            try vault.write {
                let stored = holder(1)
                stored.list.append(objectsIn: [.int(0), .fromDictionary(["x": .fromArray([.int(1), .fromDictionary(["y": .int(1)])])])])
                stored.map["m"] = .fromArray([.string("a")])
                vault.add(stored)
            }
            let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
            try vault.write {
                stored.list[1].dictionaryValue?["x"]?.listValue?[0] = .int(2)
                stored.list[1].dictionaryValue?["x"]?.listValue?[1].dictionaryValue?["y"] = .string("two levels")
                stored.list[1].dictionaryValue?["new"] = .bool(true)
                stored.map["m"]?.listValue?.append(.string("b"))
            }
            let fresh = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
            #expect(fresh.list[0] == .int(0))
            #expect(fresh.list[1] == .fromDictionary(["x": .fromArray([.int(2), .fromDictionary(["y": .string("two levels")])]), "new": .bool(true)]))
            #expect(fresh.map["m"] == .fromArray([.string("a"), .string("b")]))
            #expect(vault.objects(MxHolder.self).filter("map['m'][1] == 'b'").map(\.id) == [1])
        }
        let vault = try openVault()
        let reopened = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(reopened.list[1].dictionaryValue?["x"]?.listValue?[1].dictionaryValue?["y"] == .string("two levels"))
        #expect(reopened.map["m"]?.listValue?.count == 2)
    }

    @Test(".object with an unmanaged object adds it with its owner (property, list, map, set, nested value); reads give it back")
    func unmanagedObjectsAreAdded() throws {
        let vault = try openVault()
        let first = mxTarget(1, "first")
        let stored = holder(1, .object(first))
        stored.list.append(.object(mxTarget(2, "second")))
        stored.map["t"] = .object(mxTarget(3, "third"))
        stored.set.insert(.object(mxTarget(4, "fourth")))
        try vault.write { vault.add(stored) }
        #expect(vault.objects(MxTarget.self).map(\.id).sorted() == [1, 2, 3, 4])
        #expect(first.vault != nil, "the linked object itself became managed")

        let fresh = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        let managedFirst = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 1))
        #expect(fresh.value.object(MxTarget.self)?.name == "first" && fresh.value.object(MxHolder.self) == nil)
        #expect(fresh.value.dynamicObject?["name"] as? String == "first")
        #expect(fresh.value == .object(managedFirst), "the stored object, by identity")
        #expect(fresh.list.first?.object(MxTarget.self)?.name == "second")
        #expect(fresh.map["t"]?.object(MxTarget.self)?.name == "third")
        #expect(fresh.set.first?.object(MxTarget.self)?.name == "fourth")

        // Assigned to a managed object inside a write, nested: added too; a managed object is linked, not copied.
        try vault.write {
            fresh.value = .fromDictionary(["deep": .fromArray([.object(mxTarget(5, "fifth"))])])
            fresh.list.append(.object(managedFirst))
        }
        #expect(vault.objects(MxTarget.self).count == 5)
        #expect(vault.object(ofType: MxTarget.self, forPrimaryKey: 5)?.name == "fifth")
        #expect(fresh.value.dictionaryValue?["deep"]?.listValue?[0].object(MxTarget.self)?.name == "fifth")
        #expect(fresh.list.last == .object(managedFirst))
        let fifth = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 5))
        #expect(vault.objects(MxHolder.self).filter("value['deep'][0] == %@", fifth).map(\.id) == [1])
    }

    @Test("deleting a linked object leaves .none where it was: the property, a list element, a map value, deep in nested values; a set drops it")
    func deletingTheTargetClearsLinks() throws {
        let vault = try openVault()
        try vault.write {
            let doomed = mxTarget(1, "doomed"), kept = mxTarget(2, "kept")
            let direct = holder(1, .object(doomed))
            direct.list.append(objectsIn: [.int(1), .object(doomed), .object(kept)])
            direct.map["t"] = .object(doomed)
            direct.map["n"] = .int(3)
            direct.set.insert(objectsIn: [.object(doomed), .int(1)])
            vault.add(direct)
            vault.add(holder(2, .fromDictionary(["a": .fromArray([.int(1), .fromDictionary(["t": .object(doomed), "s": .string("x")])])])))
            vault.add(holder(3, .fromArray([.fromArray([.object(kept)])])))
        }
        let doomed = try #require(vault.object(ofType: MxTarget.self, forPrimaryKey: 1))
        try vault.write { vault.delete(doomed) }

        let direct = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(direct.value == AnyVaultValue.none)
        #expect(direct.list.count == 3 && direct.list[0] == .int(1) && direct.list[1] == AnyVaultValue.none)
        #expect(direct.list[2].object(MxTarget.self)?.name == "kept")
        #expect(direct.map.count == 2 && direct.map["t"] == AnyVaultValue.none && direct.map["n"] == .int(3))
        #expect(Array(direct.set) == [.int(1)])
        let deep = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 2))
        #expect(deep.value == .fromDictionary(["a": .fromArray([.int(1), .fromDictionary(["t": AnyVaultValue.none, "s": .string("x")])])]))
        let untouched = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 3))
        #expect(untouched.value.listValue?[0].listValue?[0].object(MxTarget.self)?.name == "kept")

        let holders = vault.objects(MxHolder.self)
        #expect(holders.filter("value == nil").map(\.id) == [1])
        // A missing key reads as nil too, so the test pins the dictionary that held the link.
        #expect(holders.filter("value['a'][1]['t'] == nil AND value['a'][1]['t'].@type == 'null' AND value['a'][1]['s'] == 'x'").map(\.id) == [2])
        #expect(holders.filter("value['a'][1]['t'] == nil").map(\.id) == [1, 2, 3])
        #expect(holders.filter("value[0][0].@type == 'link'").map(\.id) == [3])
    }

    @Test("a MutableSet<AnyVaultValue> holds scalars and objects; a nested list or dictionary in it fails the write")
    func setRefusesNestedCollections() throws {
        let vault = try openVault()
        try vault.write {
            let stored = holder(1)
            stored.set.insert(objectsIn: [.int(1), .string("1"), .bool(true), .none, .object(mxTarget(1, "t"))])
            vault.add(stored)
        }
        let stored = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        #expect(stored.set.count == 5 && stored.set.contains(.string("1")) && !stored.set.contains(.int(2)))

        #expect(throws: VaultObjectError.self) {
            try vault.write {
                let other = holder(2)
                other.set.insert(.fromArray([.int(1)]))
                vault.add(other)
            }
        }
        #expect(vault.object(ofType: MxHolder.self, forPrimaryKey: 2) == nil)
        #expect(throws: VaultObjectError.self) { try vault.write { stored.set.insert(.fromDictionary(["k": .int(1)])) } }
        #expect(throws: VaultObjectError.self) { try vault.write { stored.set.insert(.fromArray([])) } }
        #expect(stored.set.count == 5, "the failed writes were rolled back")
        #expect(!stored.set.contains { $0.listValue != nil || $0.dictionaryValue != nil })
    }

    @Test("an embedded object is not a mixed value: AnyVaultValue.init(boxed:) refuses it; embedded properties sit beside mixed ones")
    func embeddedObjectsAreRefused() throws {
        let vault = try openVault()
        // `.object` takes an Object, so the type system keeps embedded objects out; the boxed
        // path (`create(value:)`, key-value coding) refuses them too (a programmer error, as in Realm).
        #expect(AnyVaultValue(boxed: MxEmbedded()) == nil)
        #expect(AnyVaultValue(boxed: [1, "a"] as [Any]) == .fromArray([.int(1), .string("a")]))
        // An embedded object in its own property is fine alongside a mixed value.
        try vault.write {
            let stored = holder(2, .string("ok"))
            stored.embedded = MxEmbedded()
            vault.add(stored)
        }
        #expect(vault.object(ofType: MxHolder.self, forPrimaryKey: 2)?.value == .string("ok"))
    }

    @Test("fromArray and fromDictionary make unmanaged collections, shared by copies, copied into the vault when stored")
    func unmanagedCollections() throws {
        let array = AnyVaultValue.fromArray([.int(1), .string("a")])
        let list = try #require(array.listValue)
        #expect(list.count == 2 && list.vault == nil && array.dictionaryValue == nil && array.intValue == nil)
        let copy = array
        list.append(.fromDictionary(["k": .fromArray([])]))
        #expect(copy.listValue?.count == 3 && copy == array, "a copy of the value shares its list")
        #expect(copy.listValue?[2].dictionaryValue?["k"]?.listValue?.isEmpty == true)

        let dictionary = AnyVaultValue.fromDictionary(["b": .int(2), "a": .int(1), "n": .none])
        let map = try #require(dictionary.dictionaryValue)
        #expect(map.count == 3 && map.vault == nil && map.keys == ["a", "b", "n"] && dictionary.listValue == nil)
        #expect(map["a"] == .int(1) && map["n"] == AnyVaultValue.none && map["zz"] == nil)
        #expect(AnyVaultValue.fromArray([]).listValue?.isEmpty == true && AnyVaultValue.fromDictionary([:]).dictionaryValue?.isEmpty == true)
        #expect(!array.description.isEmpty && "\(AnyVaultValue.string("shown"))".contains("shown"))

        // Changed while unmanaged, through an unmanaged owner: the owner keeps the change until added.
        let owner = holder(1, dictionary)
        owner.value.dictionaryValue?["a"] = .string("changed")
        owner.value.dictionaryValue?["b"] = nil
        #expect(owner.value == .fromDictionary(["a": .string("changed"), "n": .none]))

        let vault = try openVault()
        try vault.write {
            vault.add(owner)
            vault.add(holder(2, array))
        }
        // The stored values are copies: changing the unmanaged originals afterwards changes nothing stored.
        map["a"] = .int(100)
        list.removeAll()
        let first = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 1))
        let second = try #require(vault.object(ofType: MxHolder.self, forPrimaryKey: 2))
        #expect(first.value == .fromDictionary(["a": .string("changed"), "n": .none]))
        #expect(second.value == .fromArray([.int(1), .string("a"), .fromDictionary(["k": .fromArray([])])]))
        #expect(second.value.listValue?.vault != nil, "read from the vault, a nested list is managed")
    }
}
