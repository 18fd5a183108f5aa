import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// An object deleted stays deleted for everything that still holds it, even
// when a new object of its class is added afterwards: SQLite would give the new
// row the deleted row's id (the largest id plus one), which would bring the old
// accessor back to life as the new object (see RowIDHighWater.swift).

final class Note: Object {
    @Persisted var text = ""
    @Persisted var place: NotePlace?
    @Persisted var places: List<NotePlace>
}

final class NotePlace: EmbeddedObject {
    @Persisted var name = ""
}

@Suite("Row ids of deleted objects are not given again")
struct RowIDReuseTests {
    @Test("deleting the newest object, then adding one: the old object stays invalidated and its reference resolves to nil", arguments: StorageMode.writable)
    func deletedStaysDeleted(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("rowid-reuse")
        let configuration = mode.configuration(directory, types: [Note.self, NotePlace.self])
        // Objects stored by an earlier run of the app: the process starts with them on file.
        if mode == .encryptedFile {
            try onNewThread {
                let vault = try Vault(configuration: configuration)
                try vault.write { for text in ["a", "b", "c"] { vault.add(Note(value: ["text": text])) } }
            }
        }
        let vault = try Vault(configuration: configuration)
        if mode == .inMemory {
            try vault.write { for text in ["a", "b", "c"] { vault.add(Note(value: ["text": text])) } }
        }
        let newest = try #require(vault.objects(Note.self).last)
        #expect(newest.text == "c")
        let reference = ThreadSafeReference(to: newest)
        var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
        let token = vault.objects(Note.self).observe { change in
            if case .update(_, let deletions, let insertions, let modifications) = change { updates.append((deletions, insertions, modifications)) }
        }
        defer { token.invalidate() }
        vault.refresh()

        try vault.write { vault.delete(newest) }
        #expect(newest.isInvalidated)
        let added = Note(value: ["text": "d", "place": ["name": "here"], "places": [["name": "x"]]])
        try vault.write { vault.add(added) }
        #expect(newest.isInvalidated, "the deleted object does not become the new one")
        #expect(added.text == "d" && added.place?.name == "here" && added.places.first?.name == "x")
        #expect(vault.objects(Note.self).map(\.text) == ["a", "b", "d"])
        #expect(vault.resolve(reference) == nil)
        vault.refresh()
        #expect(updates.count == 1)
        #expect(updates.first?.deletions == [2] && updates.first?.insertions == [2], "one deletion and one insertion")
        #expect(updates.first?.modifications == [], "the renumbering is not a modification")

        // Embedded objects too: replacing one deletes its row; the next takes a new id.
        let oldPlace = try #require(added.place)
        try vault.write { added.place = NotePlace(value: ["name": "there"]) }
        #expect(oldPlace.isInvalidated && added.place?.name == "there")

        // And from another vault instance of the process (another thread).
        let stillHeld = try #require(vault.objects(Note.self).last)
        try vault.write { vault.delete(stillHeld) }
        try onNewThread {
            let other = try Vault(configuration: configuration)
            try other.write { other.add(Note(value: ["text": "e"])) }
        }
        vault.refresh()
        #expect(stillHeld.isInvalidated)
        #expect(vault.objects(Note.self).map(\.text) == ["a", "b", "e"])
    }
}
