import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Objects made from a table image read their values from it until it is
// dropped (TableImages/ManagedObject+TableImage.swift): whatever happens to the
// image, an object's values must be the ones SQLite holds for it.

@Suite("Objects read from table images")
struct TableImageObjectTests {
    /// A vault of 100 `ImagedItem`s whose class has an image at the current version.
    static func imagedVault(_ directory: TemporaryDirectory, mode: StorageMode = .encryptedFile) throws -> Vault {
        let vault = try Vault(configuration: mode.configuration(directory, types: [ImagedItem.self]))
        try TableImageTests.populate(vault)
        _ = Array(vault.objects(ImagedItem.self))
        #expect(vault.session.tableImages.count == 1)
        return vault
    }

    static func image(of vault: Vault) -> TableImage? {
        vault.session.tableImages.image(for: vault.objects(ImagedItem.self).schema, version: vault.session.checkedContentVersion)
    }

    @Test("objects from an image read from it, and copy their rows out when a write moves past it", arguments: StorageMode.writable)
    func detachOnWrite(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("image-objects-write")
        let vault = try Self.imagedVault(directory, mode: mode)
        let image = try #require(Self.image(of: vault))
        let held = Array(vault.objects(ImagedItem.self).filter("age == 7 OR age == 8"))
        #expect(held.map(\.id) == [7, 8, 57, 58])
        #expect(held.allSatisfy { $0.manager?.image === image && $0.manager?.buffer == nil })
        let before = held.map(TableImageTests.describe)
        #expect(before.first == "7 item 7 7 nil [\"t1\"] 6")
        try vault.write {
            held[0].name = "renamed"
            if let other = vault.object(ofType: ImagedItem.self, forPrimaryKey: 58) { other.age = 9 }
        }
        // The write retired the image: every object copied its row out first, and the rows are freed.
        #expect(image.isRetired)
        #expect(image.columns.isEmpty && image.rowIDs.isEmpty)
        #expect(image.firstObject == nil)
        #expect(held.allSatisfy { $0.manager?.image == nil && $0.manager?.buffer != nil })
        #expect(held.map(TableImageTests.describe) == ["7 renamed 7 nil [\"t1\"] 6", before[1], before[2], "58 item 58 9 14.5 [\"t1\"] 57"])
    }

    @Test("an object from an image whose row is deleted keeps its last values")
    func deletedKeepsValues() throws {
        let directory = try TemporaryDirectory("image-objects-delete")
        let vault = try Self.imagedVault(directory)
        // Through the loop (`first` alone asks SQLite for one row).
        let item = try #require(Array(vault.objects(ImagedItem.self).filter("age == 12")).first)
        #expect(item.manager?.image != nil)
        #expect(TableImageTests.describe(item) == "12 item 12 12 3.0 [\"t0\"] 11")
        try vault.write {
            if let same = vault.object(ofType: ImagedItem.self, forPrimaryKey: item.id) { vault.delete(same) }
        }
        #expect(item.isInvalidated)
        #expect(item.name == "item \(item.id)")
        #expect(item.age == 12)
        #expect(item.score == 3.0)
    }

    @Test("an image replaced at the same version detaches its objects; a loop over it goes on with the statement")
    func replacedImage() throws {
        let directory = try TemporaryDirectory("image-objects-replace")
        let vault = try Self.imagedVault(directory)
        let schema = vault.objects(ImagedItem.self).schema
        let first = try #require(Self.image(of: vault))
        let expected = vault.objects(ImagedItem.self).map(TableImageTests.describe)
        var seen: [String] = []
        var kept: [ImagedItem] = []
        for item in vault.objects(ImagedItem.self) {
            seen.append(TableImageTests.describe(item))
            kept.append(item)
            if item.id == 40 {
                // Another image of the class at this version (as a rebuild would make): the first is retired.
                let second = try #require(vault.readTableImage(schema))
                #expect(vault.session.tableImages.store(second))
                #expect(first.isRetired)
            }
        }
        #expect(seen == expected)
        #expect(kept.prefix(40).allSatisfy { $0.manager?.image == nil })
        #expect(kept.map(TableImageTests.describe) == expected)
        #expect(first.firstObject == nil)
    }

    @Test("objects from an image that are freed leave its list")
    func freedObjectsUnlink() throws {
        let directory = try TemporaryDirectory("image-objects-free")
        let vault = try Self.imagedVault(directory)
        let image = try #require(Self.image(of: vault))
        do {
            let batch = Array(vault.objects(ImagedItem.self).filter("age < 5"))
            #expect(batch.count == 10)
            #expect(image.firstObject != nil)
        }
        #expect(image.firstObject == nil)
        var kept = Array(vault.objects(ImagedItem.self).filter("age < 5"))
        kept.remove(at: 3)
        kept.remove(at: 0)
        var count = 0
        var next = image.firstObject
        while let object = next {
            count += 1
            next = object.takeUnretainedValue().imageNext
        }
        #expect(count == kept.count)
        try vault.write { kept[0].age = 44 }
        #expect(image.isRetired)
        #expect(kept.map(\.id) == [2, 3, 50, 51, 52, 53, 54, 100])
        #expect(kept.map(\.age) == [44, 3, 0, 1, 2, 3, 4, 0])
    }

    @Test("an image freed without being retired first detaches the objects reading from it")
    func unretiredImageDetachesWhenFreed() throws {
        let directory = try TemporaryDirectory("image-objects-free")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ImagedItem.self]))
        try TableImageTests.populate(vault)
        let schema = vault.objects(ImagedItem.self).schema
        var objects: [ObjectBase] = []
        do {
            // An image the cache never held (so never retires): only this scope keeps it.
            let image = try #require(vault.readTableImage(schema))
            objects = [0, 5, 99].withUnsafeBufferPointer { vault.materialize(schema, image: image, rows: $0) }
            #expect(objects.allSatisfy { $0.manager?.image === image && $0.manager?.buffer == nil })
        }
        let items = objects.compactMap { $0 as? ImagedItem }
        #expect(items.count == 3)
        #expect(items.allSatisfy { $0.manager?.image == nil && $0.manager?.buffer != nil })
        var expected: [String] = []
        for id in [1, 6, 100] {
            let item = try #require(vault.object(ofType: ImagedItem.self, forPrimaryKey: id))
            expected.append(TableImageTests.describe(item))
        }
        #expect(items.map(TableImageTests.describe) == expected)
    }
}
