import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

final class ImagedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var tags: List<String>
    @Persisted var age = 0
    @Persisted var score: Double?
    @Persisted var friend: ImagedItem?
}

// A class's rows kept in memory for one version (TableImages/TableImage.swift):
// whatever is read from an image must be what SQLite holds at that version.

@Suite("Table images")
struct TableImageTests {
    static func populate(_ vault: Vault, count: Int = 100) throws {
        try vault.write {
            var previous: ImagedItem?
            for id in 1...count {
                let item = ImagedItem()
                item.id = id
                item.name = "item \(id)"
                item.age = id % 50
                item.score = id % 7 == 0 ? nil : Double(id) / 4
                item.tags.append(objectsIn: ["t\(id % 3)"])
                item.friend = previous
                vault.add(item)
                previous = item
            }
        }
    }

    static func describe(_ item: ImagedItem) -> String {
        "\(item.id) \(item.name) \(item.age) \(item.score.map { "\($0)" } ?? "nil") \(Array(item.tags)) \(item.friend?.id ?? -1)"
    }

    @Test("iterating a class builds its image; filtered reads from it give SQLite's objects", arguments: StorageMode.writable)
    func iterationBuildsImage(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("table-image")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault)
        let query = "age >= 30 AND age < 40 OR score == nil"
        // Before any image: SQLite's answers.
        let expected = vault.objects(ImagedItem.self).filter(query).map(Self.describe)
        let expectedCount = vault.objects(ImagedItem.self).filter(query).count
        #expect(vault.session.tableImages.count == 0)
        var everything: [String] = []
        for item in vault.objects(ImagedItem.self) { everything.append(Self.describe(item)) }
        #expect(everything.count == 100)
        #expect(vault.session.tableImages.count == 1)
        let schema = vault.objects(ImagedItem.self).schema
        #expect(vault.session.tableImages.image(for: schema, version: vault.session.checkedContentVersion) != nil)
        // From the image now: the same objects, values, lists and links.
        let filtered = vault.objects(ImagedItem.self).filter(query)
        #expect(filtered.map(Self.describe) == expected)
        #expect(filtered.count == expectedCount)
        #expect(vault.objects(ImagedItem.self).map(Self.describe) == everything)
        #expect(vault.objects(ImagedItem.self).filter("age == %@", 7).first?.id == 7)
    }

    @Test("a write moves past the image: reads after it see the write", arguments: StorageMode.writable)
    func writeDropsImage(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("table-image-write")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault)
        _ = Array(vault.objects(ImagedItem.self))
        let schema = vault.objects(ImagedItem.self).schema
        let version = vault.session.checkedContentVersion
        #expect(vault.session.tableImages.image(for: schema, version: version) != nil)
        try vault.write {
            vault.object(ofType: ImagedItem.self, forPrimaryKey: 5)?.age = 35
            if let gone = vault.object(ofType: ImagedItem.self, forPrimaryKey: 31) { vault.delete(gone) }
        }
        #expect(vault.session.tableImages.image(for: schema, version: vault.session.checkedContentVersion) == nil)
        let ids = vault.objects(ImagedItem.self).filter("age >= 30 AND age < 40").map(\.id)
        #expect(ids == [5, 30] + Array(32...39) + Array(80...89))
        try vault.write {
            // Inside a write: every change moves the version too.
            _ = Array(vault.objects(ImagedItem.self))
            vault.object(ofType: ImagedItem.self, forPrimaryKey: 6)?.age = 36
            #expect(vault.objects(ImagedItem.self).filter("age == 36").map(\.id) == [6, 36, 86])
            vault.add(ImagedItem(value: ["id": 1000, "age": 36]))
            #expect(vault.objects(ImagedItem.self).filter("age == 36").map(\.id) == [6, 36, 86, 1000])
        }
    }

    @Test("a write inside a loop over an image: the loop goes on with what SQLite holds", arguments: StorageMode.writable)
    func writeInsideLoop(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("table-image-loop")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault, count: 10)
        _ = Array(vault.objects(ImagedItem.self))
        var seen: [String] = []
        try vault.write {
            for item in vault.objects(ImagedItem.self) {
                if item.id == 2 {
                    if let third = vault.object(ofType: ImagedItem.self, forPrimaryKey: 3) { vault.delete(third) }
                    vault.object(ofType: ImagedItem.self, forPrimaryKey: 4)?.name = "renamed"
                    vault.add(ImagedItem(value: ["id": 11, "name": "added"]))
                }
                seen.append("\(item.id) \(item.name)")
            }
        }
        // Rows added during the loop are not visited, as without images.
        #expect(seen == ["1 item 1", "2 item 2", "4 renamed"] + (5...10).map { "\($0) item \($0)" })
        // A filtered loop: a row that comes to match after the loop started is visited.
        _ = Array(vault.objects(ImagedItem.self))
        var matched: [Int] = []
        try vault.write {
            for item in vault.objects(ImagedItem.self).filter("age < 3") {
                if item.id == 1 { vault.object(ofType: ImagedItem.self, forPrimaryKey: 9)?.age = 0 }
                matched.append(item.id)
            }
        }
        #expect(matched == [1, 2, 9, 11])   // 11: added by the first write, with age 0
    }

    @Test("an image loop reads in batches: a write in the middle of one drops the rest of it", arguments: StorageMode.writable)
    func writeInsideBatch(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("table-image-batch")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault, count: 200)
        _ = Array(vault.objects(ImagedItem.self))
        var seen: [String] = []
        try vault.write {
            for item in vault.objects(ImagedItem.self) {
                // Image loops make their objects a few at a time: 101 is in the same batch as 100, 120 and 150 in later ones.
                if item.id == 100 {
                    for id in [101, 150] {
                        if let doomed = vault.object(ofType: ImagedItem.self, forPrimaryKey: id) { vault.delete(doomed) }
                    }
                    vault.object(ofType: ImagedItem.self, forPrimaryKey: 120)?.name = "renamed"
                }
                seen.append(item.id == 120 ? item.name : "\(item.id)")
            }
        }
        let expected = (1...200).filter { $0 != 101 && $0 != 150 }.map { $0 == 120 ? "renamed" : "\($0)" }
        #expect(seen == expected)
    }

    @Test("an image loop that meets a write after the largest row id there can be ends there")
    func writeAfterLargestRowID() throws {
        let directory = try TemporaryDirectory("table-image-largest")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ImagedItem.self]))
        try vault.write {
            for id in [1, 2, Int.max] { vault.add(ImagedItem(value: ["id": id, "name": "item \(id)"])) }
        }
        _ = Array(vault.objects(ImagedItem.self))
        #expect(vault.session.tableImages.count == 1)
        var seen: [Int] = []
        try vault.write {
            for item in vault.objects(ImagedItem.self) {
                seen.append(item.id)
                // After the last row: the loop must end, not go on from a row id past Int64.max.
                if item.id == Int.max { vault.object(ofType: ImagedItem.self, forPrimaryKey: 1)?.age += 1 }
            }
        }
        #expect(seen == [1, 2, Int.max])
        #expect(vault.object(ofType: ImagedItem.self, forPrimaryKey: 1)?.age == 1)
    }

    @Test("a loop stopped within its first batch, or over a frozen vault, builds no image")
    func noImageWithoutWholeRead() throws {
        let directory = try TemporaryDirectory("table-image-partial")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault)
        for item in vault.objects(ImagedItem.self) where item.id == 5 { break }
        // A loop reads at least a batch (64 rows) as objects before it reads ahead: one that stops within it reads nothing more.
        #expect(vault.objects(ImagedItem.self).first(where: { $0.id == 64 })?.name == "item 64")
        #expect(vault.session.tableImages.count == 0)
        // One that goes on past it (and past a quarter of the class) reads the rest into the image (TableImageReadAheadTests).
        #expect(vault.objects(ImagedItem.self).first(where: { $0.id == 70 })?.name == "item 70")
        #expect(vault.session.tableImages.count == 1)
        let frozen = vault.freeze()
        #expect(Array(frozen.objects(ImagedItem.self)).count == 100)
        #expect(frozen.session.tableImages.count == 0)
    }

    @Test("a filter read a third time at one version reads the class into an image")
    func repeatedFilterBuilds() throws {
        let directory = try TemporaryDirectory("table-image-demand")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ImagedItem.self]))
        try Self.populate(vault)
        let answers = (1...4).map { _ in vault.objects(ImagedItem.self).filter("age < %@ AND score != nil", 10).map(Self.describe) }
        #expect(vault.session.tableImages.count == 1)
        #expect(Set(answers).count == 1)
        #expect(answers[0].count == 18)
        // A filter the image cannot answer never builds one.
        let other = try TemporaryDirectory("table-image-demand-other")
        let second = try Vault(configuration: StorageMode.encryptedFile.configuration(other, types: [ImagedItem.self]))
        try Self.populate(second)
        for _ in 1...4 { _ = Array(second.objects(ImagedItem.self).filter("name BEGINSWITH 'item 1'")) }
        #expect(second.session.tableImages.count == 0)
    }

    @Test("a class larger than the images' limit is not imaged")
    func byteLimit() throws {
        let directory = try TemporaryDirectory("table-image-limit")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ImagedItem.self]))
        let large = String(repeating: "x", count: 1 << 20)
        try vault.write {
            for id in 1...20 { vault.add(ImagedItem(value: ["id": id, "name": large + "\(id)"])) }
        }
        #expect(Array(vault.objects(ImagedItem.self)).count == 20)
        #expect(vault.session.tableImages.count == 0)
        for _ in 1...4 { #expect(vault.objects(ImagedItem.self).filter("age == 0").count == 20) }
        #expect(vault.session.tableImages.count == 0)
        #expect(vault.session.tableImages.byteCount <= TableImageCache.byteLimit)
        // Just under: kept, and counted.
        try vault.write { vault.delete(vault.objects(ImagedItem.self).filter("id > 10")) }
        #expect(Array(vault.objects(ImagedItem.self)).count == 10)
        #expect(vault.session.tableImages.count == 1)
        #expect(vault.session.tableImages.byteCount > 10 << 20)
    }
}
