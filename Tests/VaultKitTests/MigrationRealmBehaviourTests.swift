import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// Migration behaviour realm-swift's MigrationTests check: nil reads as nil,
// a misspelt property is an error (not a quiet nil), values convert as Realm
// converts them, `create` takes the model's defaults, enumeration skips objects
// the block deleted, and `deleteData` reaches a class new in this version.

/// An enum stored as its raw value.
enum MRMood: Int, PersistableEnum { case calm, busy }

/// "MRItem" at two versions (V1 adds `rank`, so the class is rebuilt); "MRTag" new in V1.
enum MigrationItemV0 {
    final class MRItem: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var nickname: String?
        @Persisted var weight: Float = 0
        @Persisted var level: Int8 = 0
        @Persisted var any: AnyVaultValue
        @Persisted var mood = MRMood.calm
    }
}

enum MigrationItemV1 {
    final class MRItem: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var nickname: String?
        @Persisted var weight: Float = 0
        @Persisted var level: Int8 = 0
        @Persisted var any: AnyVaultValue
        @Persisted var mood = MRMood.calm
        @Persisted var rank = 0
    }

    final class MRTag: Object {
        @Persisted var name = "untitled"
        @Persisted var uses = 3
        @Persisted var created = Date(timeIntervalSince1970: 86_400)
    }
}

/// "MRKeyed" gaining an `ObjectId` primary key in V1 (the migration sync users made for Atlas).
enum KeyedV0 {
    final class MRKeyed: Object {
        @Persisted var name = ""
    }
}

enum KeyedV1 {
    final class MRKeyed: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
    }
}

/// "MRNamed": `first` renamed twice (through `middle`, for version 1) to `given` by version 2.
enum RenamedV0 {
    final class MRNamed: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var first = ""
        @Persisted var count: Int?
    }
}

enum RenamedV2 {
    final class MRNamed: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var given = ""
        @Persisted var total = 0
    }
}

@Suite("Migrations as Realm's tests define them")
struct MigrationRealmBehaviourTests {
    /// A vault at version 0 with items 1, 2, 3 (in `directory`), and the configuration opening it at version 1.
    private func itemsFile(_ name: String, block: @escaping MigrationBlock) throws -> (directory: TemporaryDirectory, configuration: Vault.Configuration) {
        let directory = try TemporaryDirectory(name)
        let url = directory.file("items.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [MigrationItemV0.MRItem.self]))
            try vault.write {
                for id in 1...3 { vault.add(MigrationItemV0.MRItem(value: ["id": id, "title": "item \(id)", "nickname": id == 1 ? "one" : nil])) }
            }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1,
                                                objectTypes: [MigrationItemV1.MRItem.self, MigrationItemV1.MRTag.self])
        configuration.migrationBlock = block
        return (directory, configuration)
    }

    @Test("a migration's objects print as Realm prints objects: the class, then each property's value")
    func migrationObjectsDescribeThemselves() throws {
        let (directory, configuration) = try itemsFile("migration-realm-description") { migration, _ in
            migration.enumerateObjects(ofType: "MRItem") { old, new in
                guard let old, let new, old["id"] as? Int == 2 else { return }
                let oldText = "\(old)", newText = "\(new)"
                #expect(oldText.hasPrefix("MRItem {\n\tid = 2;\n\ttitle = item 2;\n\tnickname = nil;") && oldText.hasSuffix("\n}"), "\(oldText)")
                #expect(!oldText.contains("rank"), "the old object has the old schema's properties")
                #expect(newText.contains("\ttitle = item 2;") && newText.contains("\trank = 0;"), "\(newText)")
            }
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in _ = try Vault(configuration: configuration) }
    }

    @Test("nil reads as nil on both sides; integers and enums read as numbers of any width; Doubles set Floats, Ints set Int8s that fit, raw values set mixed properties; the old schema keeps declaration order")
    func valuesAsRealmGivesAndTakesThem() throws {
        let (directory, configuration) = try itemsFile("migration-realm-values") { migration, _ in
            #expect(migration.oldSchema["MRItem"]?.properties.map(\.name) == ["id", "title", "nickname", "weight", "level", "any", "mood"],
                    "the old schema in declaration order, as Realm's")
            migration.enumerateObjects(ofType: "MRItem") { old, new in
                guard let old, let new else {
                    Issue.record("old and new items")
                    return
                }
                let id = old["id"] as? Int ?? 0
                #expect((old["nickname"] == nil) == (id != 1) && (new["nickname"] == nil) == (id != 1), "nil itself, on both sides")
                // Integers of any width and enums read as numbers that cast to any width, on both sides (Realm's NSNumber).
                #expect(old["level"] as? Int8 == 0 && old["level"] as? Int == 0 && new["level"] as? Int == 0 && new["level"] as? Int64 == 0)
                #expect(old["id"] as? Int32 == Int32(id) && new["id"] as? Int == id)
                #expect(old["mood"] as? Int == 0 && new["mood"] as? Int == 0)
                new["mood"] = old["id"] as? Int == 2 ? MRMood.busy : old["mood"]
                new["weight"] = 1.5
                new["level"] = old["id"]   // a number read from an object sets an Int8 it fits
                #expect(new["level"] as? Int == id)
                new["level"] = 100
                new["any"] = id == 1 ? 12345 : "text"
                new["rank"] = id * 10
            }
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let items = vault.objects(MigrationItemV1.MRItem.self).sorted(byKeyPath: "id")
            #expect(items.map(\.weight) == [1.5, 1.5, 1.5] && items.map(\.level) == [100, 100, 100])
            #expect(items.map(\.any) == [.int(12345), .string("text"), .string("text")])
            #expect(items.map(\.rank) == [10, 20, 30])
            #expect(items.map(\.mood) == [.calm, .busy, .calm])
        }
    }

    @Test("a misspelt property, or a number that does not fit, fails the migration naming the property; the file keeps its version",
          arguments: ["misspelt", "too large", "unknown class"])
    func refusals(kind: String) throws {
        let (directory, configuration) = try itemsFile("migration-realm-refusals") { migration, _ in
            if kind == "unknown class" {
                let made = migration.create("MRNoSuchClass", value: ["name": "x"])
                made["name"] = "y"   // skipped after the failure, as the rest of the block
                return
            }
            migration.enumerateObjects(ofType: "MRItem") { old, new in
                if kind == "misspelt" {
                    _ = old?["titel"] as? String
                } else {
                    new?["level"] = 300
                }
            }
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            #expect { _ = try Vault(configuration: configuration) } throws: { error in
                let message = "\(error)"
                switch kind {
                case "misspelt": return message.contains("titel") && message.contains("MRItem")
                case "too large": return message.contains("level")
                default: return message.contains("MRNoSuchClass") && message.contains("objectTypes")
                }
            }
            let url = try #require(configuration.fileURL)
            #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 0)
        }
    }

    @Test("create takes the model's defaults and unmanaged objects; deleteData reaches a class new in this version")
    func createAndDeleteData() throws {
        let (directory, configuration) = try itemsFile("migration-realm-create") { migration, _ in
            let tag = migration.create("MRTag", value: ["name": "given"])
            #expect(tag["uses"] as? Int == 3 && tag["created"] as? Date == Date(timeIntervalSince1970: 86_400), "the model's defaults")
            migration.create("MRTag", value: MigrationItemV1.MRTag(value: ["name": "from an object", "uses": 9]))
            migration.create("MRTag")
            var names: [String] = []
            migration.enumerateObjects(ofType: "MRTag") { _, new in names.append(new?["name"] as? String ?? "?") }
            #expect(names == ["given", "from an object", "untitled"])
            migration.create("MRItem", value: ["id": 99])
            #expect(migration.deleteData(forType: "MRItem"))
            migration.create("MRItem", value: ["id": 100, "title": "after deleteData"])
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let tags = vault.objects(MigrationItemV1.MRTag.self)
            #expect(Set(tags.map(\.name)) == ["given", "from an object", "untitled"])
            #expect(tags.map(\.uses).sorted() == [3, 3, 9])
            #expect(vault.objects(MigrationItemV1.MRItem.self).map(\.id) == [100])
        }
        let (otherDirectory, other) = try itemsFile("migration-realm-delete-new-class") { migration, _ in
            migration.create("MRTag", value: ["name": "temporary"])
            #expect(migration.deleteData(forType: "MRTag"), "a class new in this version")
            #expect(!migration.deleteData(forType: "NoSuchClass"))
        }
        defer { withExtendedLifetime(otherDirectory) {} }
        try onNewThread { [other] in
            let vault = try Vault(configuration: other)
            #expect(vault.objects(MigrationItemV1.MRTag.self).isEmpty && vault.objects(MigrationItemV1.MRItem.self).count == 3)
        }
    }

    @Test("a second enumeration of a rebuilt class skips the objects the first one deleted")
    func enumerationSkipsDeletedObjects() throws {
        let (directory, configuration) = try itemsFile("migration-realm-deleted") { migration, _ in
            migration.enumerateObjects(ofType: "MRItem") { old, new in
                if old?["id"] as? Int == 2, let new { migration.delete(new) }
            }
            var seen: [Int] = []
            migration.enumerateObjects(ofType: "MRItem") { old, new in
                seen.append(old?["id"] as? Int ?? -1)
                #expect(new?["title"] as? String != nil, "each enumerated object still exists")
            }
            #expect(seen == [1, 3])
        }
        defer { withExtendedLifetime(directory) {} }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            #expect(vault.objects(MigrationItemV1.MRItem.self).map(\.id).sorted() == [1, 3])
        }
    }

    @Test("a new primary key gets its values in the block; keys left equal fail the migration, naming the property",
          arguments: [true, false])
    func newPrimaryKey(blockSetsKeys: Bool) throws {
        let directory = try TemporaryDirectory("migration-realm-new-key")
        let url = directory.file("keyed.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [KeyedV0.MRKeyed.self]))
            try vault.write { for name in ["a", "b", "c"] { vault.add(KeyedV0.MRKeyed(value: ["name": name])) } }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [KeyedV1.MRKeyed.self])
        configuration.migrationBlock = { migration, _ in
            guard blockSetsKeys else { return }
            migration.enumerateObjects(ofType: "MRKeyed") { _, new in new?["_id"] = ObjectId.generate() }
        }
        try onNewThread { [configuration] in
            if blockSetsKeys {
                let vault = try Vault(configuration: configuration)
                let objects = vault.objects(KeyedV1.MRKeyed.self)
                #expect(Set(objects.map(\._id)).count == 3 && Set(objects.map(\.name)) == ["a", "b", "c"])
                let first = try #require(objects.first)
                #expect(vault.object(ofType: KeyedV1.MRKeyed.self, forPrimaryKey: first._id)?.name == first.name)
                #expect(throws: (any Error).self, "the key is unique again after the migration") {
                    try vault.write { vault.add(KeyedV1.MRKeyed(value: ["_id": first._id, "name": "twin"])) }
                }
            } else {
                #expect { _ = try Vault(configuration: configuration) } throws: { "\($0)".contains("_id") && "\($0)".contains("primary key") }
                #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 0)
            }
        }
    }

    @Test("renames chain across versions; a rename to another type, optional to required, or from a missing property fails naming it",
          arguments: [("chain", ""), ("first", "from string to int"), ("count", "from optional to required"), ("nosuch", "had no property 'nosuch'")])
    func renames(from: String, failure: String) throws {
        let directory = try TemporaryDirectory("migration-realm-renames")
        let url = directory.file("named.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [RenamedV0.MRNamed.self]))
            try vault.write { vault.add(RenamedV0.MRNamed(value: ["id": 1, "first": "Ada", "count": 3])) }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 2, objectTypes: [RenamedV2.MRNamed.self])
        configuration.migrationBlock = { migration, oldVersion in
            if from == "chain" {
                if oldVersion < 1 { migration.renameProperty(onType: "MRNamed", from: "first", to: "middle") }
                if oldVersion < 2 { migration.renameProperty(onType: "MRNamed", from: "middle", to: "given") }
            } else {
                migration.renameProperty(onType: "MRNamed", from: from, to: from == "nosuch" ? "given" : "total")
            }
        }
        try onNewThread { [configuration] in
            if failure.isEmpty {
                let vault = try Vault(configuration: configuration)
                #expect(vault.object(ofType: RenamedV2.MRNamed.self, forPrimaryKey: 1)?.given == "Ada")
            } else {
                #expect { _ = try Vault(configuration: configuration) } throws: { "\($0)".contains(failure) }
                #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 0)
            }
        }
    }

    @Test("deleteVaultIfMigrationNeeded deletes the file without calling the block, also when the version was raised")
    func deleteInsteadOfMigrating() throws {
        let (directory, migrating) = try itemsFile("migration-realm-delete-if-needed") { _, _ in
            Issue.record("the migration block is not called when the file is deleted")
        }
        defer { withExtendedLifetime(directory) {} }
        var configuration = migrating
        configuration.deleteVaultIfMigrationNeeded = true
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            #expect(vault.objects(MigrationItemV1.MRItem.self).isEmpty)
            try vault.write { vault.add(MigrationItemV1.MRItem(value: ["id": 1, "rank": 2])) }
            let url = try #require(configuration.fileURL)
            #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 1)
        }
    }
}
