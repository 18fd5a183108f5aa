import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

@Suite("Synced vaults: recording commits and applying remote change sets")
struct SyncedVaultTests {
    @Test("local commits become change sets in the outbox, with the operations they made; commits not yet made into one coalesce")
    func recordsCommits() throws {
        let directory = try TemporaryDirectory("sync-record")
        let device = try SyncTestDevice(directory, "a", relay: InProcessRelay())
        try device.write { vault in
            let note = SyncNote()
            note.id = "n1"
            note.title = "Groceries"
            note.tags.append(objectsIn: ["milk", "eggs"])
            note.counts["eggs"] = 6
            vault.add(note)
        }
        _ = try device.synced.pendingChangeSets()
        try device.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "n1")?.title = "Shopping" }
        _ = try device.synced.pendingChangeSets()
        try device.write { vault in
            if let note = vault.object(ofType: SyncNote.self, forPrimaryKey: "n1") { vault.delete(note) }
        }
        let pending = try device.synced.pendingChangeSets()
        #expect(pending.map(\.sequence) == [1, 2, 3])
        #expect(pending.allSatisfy { $0.author == device.synced.device })
        let first = pending[0].operations.map(\.change)
        #expect(first.first == .create)
        #expect(first.contains(.set(property: "title", value: .string("Groceries"))))
        #expect(first.filter { if case .listInsert = $0 { true } else { false } }.count == 2)
        #expect(first.contains { if case .mapEntry(_, _, "eggs", .int(6)?) = $0 { true } else { false } })
        #expect(pending[1].operations.map(\.change) == [.set(property: "title", value: .string("Shopping"))])
        #expect(pending[2].operations.map(\.change) == [.erase])
        #expect(pending[2].operations[0].object.incarnation == 2)

        try device.synced.acknowledgeUploaded(through: 2)
        #expect(try device.synced.pendingChangeSets().map(\.sequence) == [3])
        // The outbox, the device id and the sequence survive reopening.
        let reopened = try SyncedVault(configuration: device.configuration)
        #expect(reopened.device == device.synced.device)
        try device.write { vault in vault.add(SyncPerson(value: ["id": 1, "name": "Ana"])) }
        #expect(try reopened.pendingChangeSets().map(\.sequence) == [3, 4])
        // Two commits before the next change set is made: one change set with their net effect.
        try device.write { vault in vault.object(ofType: SyncPerson.self, forPrimaryKey: 1)?.name = "Ana B" }
        try device.write { vault in vault.object(ofType: SyncPerson.self, forPrimaryKey: 1)?.name = "Ana C" }
        let coalesced = try reopened.pendingChangeSets().last
        #expect(coalesced?.sequence == 5 && coalesced?.operations.map(\.change) == [.set(property: "name", value: .string("Ana C"))])
    }

    @Test("objects in the vault before sync was enabled are recorded as created")
    func adoptsExistingObjects() throws {
        let directory = try TemporaryDirectory("sync-adopt")
        let configuration = Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: syncTestKey,
                                                objectTypes: syncTestTypes)
        let vault = try Vault(configuration: configuration)
        try vault.write { vault.add(SyncPerson(value: ["id": 7, "name": "Old"])) }
        let synced = try SyncedVault(configuration: configuration)
        let operations = try synced.pendingChangeSets().flatMap(\.operations)
        #expect(operations.map(\.change) == [.create, .set(property: "name", value: .string("Old"))])
        #expect(try SyncedVault(configuration: configuration).pendingChangeSets().count == 1)
    }

    @Test("two devices converge through a relay: values, lists, sets, maps and links")
    func twoDevicesConverge() async throws {
        let pair = try SyncTestPair("sync-two")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in
            let ana = vault.create(SyncPerson.self, value: ["id": 1, "name": "Ana"])
            let note = SyncNote(value: ["id": "n1", "title": "Plan", "rank": 3, "score": 2.5])
            note.author = ana
            note.tags.append(objectsIn: ["a", "b", "c"])
            note.labels.insert("work")
            note.counts["x"] = 1
            note.related.append(ana)
            vault.add(note)
        }
        try await a.sync()
        try await b.sync()
        let copy = try #require(try b.note("n1"))
        #expect(copy.title == "Plan" && copy.rank == 3 && copy.score == 2.5 && copy.author?.name == "Ana")
        #expect(Array(copy.tags) == ["a", "b", "c"] && Array(copy.labels) == ["work"] && copy.counts["x"] == 1)
        #expect(copy.related.map(\.id) == [1])
        // Concurrent edits on both devices.
        try a.write { vault in
            guard let note = vault.object(ofType: SyncNote.self, forPrimaryKey: "n1") else { return }
            note.tags.insert("a2", at: 1)
            note.labels.insert("home")
            note.counts["y"] = 2
            note.title = "Plan A"
        }
        try b.write { vault in
            guard let note = vault.object(ofType: SyncNote.self, forPrimaryKey: "n1") else { return }
            note.tags.append("d")
            note.tags.remove(at: 0)
            note.labels.remove("work")
            note.counts["x"] = 10
            note.rank = 4
        }
        for device in [a, b, a, b] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        let merged = try #require(try a.note("n1"))
        #expect(Array(merged.tags) == ["a2", "b", "c", "d"])
        #expect(Set(merged.labels) == ["home"])
        #expect(merged.counts["x"] == 10 && merged.counts["y"] == 2)
        #expect(merged.title == "Plan A" && merged.rank == 4)
    }

    @Test("last writer wins per property; a delete wins over a concurrent update; links to a deleted object become nil")
    func conflictRules() async throws {
        let pair = try SyncTestPair("sync-conflicts")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in
            let bo = vault.create(SyncPerson.self, value: ["id": 2, "name": "Bo"])
            let note = vault.create(SyncNote.self, value: ["id": "n", "title": "t0"])
            note.author = bo
            note.related.append(bo)
            vault.create(SyncNote.self, value: ["id": "gone", "title": "x"])
        }
        try await a.sync()
        try await b.sync()
        try a.write { vault in
            vault.object(ofType: SyncNote.self, forPrimaryKey: "n")?.title = "from a"
            vault.object(ofType: SyncNote.self, forPrimaryKey: "gone")?.title = "updated on a"
        }
        try b.write { vault in
            vault.object(ofType: SyncNote.self, forPrimaryKey: "n")?.title = "from b"   // later: wins
            if let gone = vault.object(ofType: SyncNote.self, forPrimaryKey: "gone") { vault.delete(gone) }
            if let bo = vault.object(ofType: SyncPerson.self, forPrimaryKey: 2) { vault.delete(bo) }
        }
        for device in [a, b, a] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        let note = try #require(try a.note("n"))
        #expect(note.title == "from b")
        #expect(note.author == nil && note.related.isEmpty)
        #expect(try a.note("gone") == nil)
    }

    @Test("creating an object with a key that exists merges into it, property by property")
    func createMergesIntoExistingKey() async throws {
        let pair = try SyncTestPair("sync-create-merge")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in vault.create(SyncNote.self, value: ["id": "same", "title": "a's", "tags": ["a"]]) }
        try b.write { vault in vault.create(SyncNote.self, value: ["id": "same", "rank": 9, "tags": ["b"]]) }
        for device in [a, b, a] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        let merged = try #require(try a.note("same"))
        #expect(Set(merged.tags) == ["a", "b"] && merged.rank == 9)
    }

    @Test("list edits land where the author made them, on every device: inserts, removals, moves and replacements")
    func listEditsKeepTheirPlace() throws {
        let pair = try SyncTestPair("sync-list-place")
        try pair.a.write { vault in vault.create(SyncNote.self, value: ["id": "l", "tags": ["a", "b", "c", "d"]]) }
        let edits: [(List<String>) -> Void] = [
            { $0.insert("x", at: 1) }, { $0.insert("y", at: 0) }, { $0.remove(at: 2) },
            { $0.move(from: 0, to: 3) }, { $0[1] = "z" }, { $0.insert(contentsOf: ["p", "q"], at: 2) },
        ]
        for edit in edits {
            var expected: [String] = []
            try pair.a.write { vault in
                guard let tags = vault.object(ofType: SyncNote.self, forPrimaryKey: "l")?.tags else { return }
                edit(tags)
                expected = Array(tags)
            }
            let changeSets = try pair.a.synced.pendingChangeSets()
            #expect(try pair.a.synced.stateDump() == pair.a.synced.dump())
            try pair.b.synced.apply(changeSets)
            #expect(try pair.b.note("l").map { Array($0.tags) } == expected)
        }
    }

    @Test("embedded objects merge property by property; removing one wins or loses by its stamp like any property")
    func embeddedObjects() async throws {
        let pair = try SyncTestPair("sync-embedded")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in
            let note = vault.create(SyncNote.self, value: ["id": "e"])
            note.place = SyncPlace(value: ["city": "Lyon", "zip": 69000, "geo": ["latitude": 45.75]])
        }
        try await a.sync()
        try await b.sync()
        #expect(try b.note("e")?.place?.geo?.latitude == 45.75)
        try a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place?.city = "Paris" }
        try b.write { vault in
            vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place?.zip = 75000
            vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place?.geo?.latitude = 48.85
        }
        for device in [a, b, a] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        #expect(try a.synced.stateDump() == a.synced.dump())
        let place = try #require(try a.note("e")?.place)
        #expect(place.city == "Paris" && place.zip == 75000 && place.geo?.latitude == 48.85)
        // A removes the embedded object, then B (later) edits it: B's edit does not bring it back.
        try a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place = nil }
        try await a.sync()
        try b.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place?.city = "Nice" }
        for device in [b, a, b] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        #expect(try b.note("e")?.place == nil)
        // A new embedded object replaces the fields of the old one.
        try b.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "e")?.place = SyncPlace(value: ["city": "Nantes"]) }
        for device in [b, a] { try await device.sync() }
        let replaced = try #require(try a.note("e")?.place)
        #expect(replaced.city == "Nantes" && replaced.zip == nil && replaced.geo == nil)
        #expect(try a.synced.dump() == b.synced.dump())
    }

    @Test("replacing a list element keeps its identity: a concurrent move or insert elsewhere survives, and the later of two replacements wins")
    func listReplacementIsASet() async throws {
        let pair = try SyncTestPair("sync-list-set")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in vault.create(SyncNote.self, value: ["id": "r", "tags": ["a", "b", "c"]]) }
        try await a.sync()
        try await b.sync()
        try a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "r")?.tags[1] = "B" }
        let replaced = try a.synced.pendingChangeSets().last?.operations.map(\.change) ?? []
        #expect(replaced.count == 1 && replaced.allSatisfy { if case .listSet = $0 { true } else { false } })
        try b.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "r")?.tags.insert("x", at: 2) }
        for device in [a, b, a] { try await device.sync() }
        #expect(try a.note("r").map { Array($0.tags) } == ["a", "B", "x", "c"])
        #expect(try a.synced.dump() == b.synced.dump())
    }

    @Test("lists and maps of embedded objects: each object travels whole; edits of different objects merge, a deleted guide reads as nil")
    func embeddedCollections() async throws {
        let pair = try SyncTestPair("sync-embedded-list")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in
            let guide = vault.create(SyncPerson.self, value: ["id": 9, "name": "Guide"])
            let note = vault.create(SyncNote.self, value: ["id": "tour"])
            note.stops.append(objectsIn: [SyncStop(value: ["name": "Museum", "minutes": 60]), SyncStop(value: ["name": "Park", "minutes": 30])])
            note.stops[0].guide = guide
            note.stopsByDay["mon"] = SyncStop(value: ["name": "Market", "minutes": 20])
        }
        try await a.sync()
        try await b.sync()
        let copy = try #require(try b.note("tour"))
        #expect(copy.stops.map(\.name) == ["Museum", "Park"] && copy.stops[0].guide?.name == "Guide")
        #expect(copy.stopsByDay["mon"]??.name == "Market")
        try a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "tour")?.stops[0].minutes = 90 }
        try b.write { vault in
            guard let note = vault.object(ofType: SyncNote.self, forPrimaryKey: "tour") else { return }
            note.stops[1].name = "Garden"
            note.stops.append(SyncStop(value: ["name": "Café", "minutes": 15]))
            note.stopsByDay["tue"] = SyncStop(value: ["name": "Harbour"])
            if let guide = vault.object(ofType: SyncPerson.self, forPrimaryKey: 9) { vault.delete(guide) }
        }
        for device in [a, b, a] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        #expect(try a.synced.stateDump() == a.synced.dump())
        let merged = try #require(try a.note("tour"))
        #expect(merged.stops.map(\.name) == ["Museum", "Garden", "Café"])
        #expect(merged.stops.map(\.minutes) == [90, 30, 15])
        #expect(merged.stops[0].guide == nil)
        #expect(Set(merged.stopsByDay.keys) == ["mon", "tue"])
    }

    @Test("mixed values sync with their kind: scalars, data, links to any class (nil once deleted) and nested collections replaced whole")
    func mixedValues() async throws {
        let pair = try SyncTestPair("sync-mixed")
        let (a, b) = (pair.a, pair.b)
        try a.write { vault in
            let person = vault.create(SyncPerson.self, value: ["id": 4, "name": "Ines"])
            let note = vault.create(SyncNote.self, value: ["id": "m"])
            note.extra = .object(person)
            note.extras.append(objectsIn: [.int(1), .double(1), .string("1"), .data(Data([2, 1])), .bool(true), .none,
                                           .fromArray([.int(7), .fromDictionary(["k": .object(person)])])])
        }
        try await a.sync()
        try await b.sync()
        let copy = try #require(try b.note("m"))
        #expect(copy.extra.object(SyncPerson.self)?.name == "Ines")
        #expect(Array(copy.extras.prefix(6)) == [.int(1), .double(1), .string("1"), .data(Data([2, 1])), .bool(true), .none])
        #expect(try a.synced.dump() == b.synced.dump())
        try b.write { vault in
            vault.object(ofType: SyncNote.self, forPrimaryKey: "m")?.extras[0] = .decimal128(Decimal128(2.5))
            if let person = vault.object(ofType: SyncPerson.self, forPrimaryKey: 4) { vault.delete(person) }
        }
        try a.write { vault in vault.object(ofType: SyncNote.self, forPrimaryKey: "m")?.extras.append(.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))) }
        for device in [b, a, b] { try await device.sync() }
        #expect(try a.synced.dump() == b.synced.dump())
        #expect(try a.synced.stateDump() == a.synced.dump())
        let merged = try #require(try a.note("m"))
        #expect(merged.extra == .none && merged.extras.count == 8 && merged.extras[0] == .decimal128(Decimal128(2.5)))
    }
}
