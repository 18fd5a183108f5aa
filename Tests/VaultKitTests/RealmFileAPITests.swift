import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Realm's file-level API under VaultKit's names: Vault(fileURL:),
// Vault.fileExists(for:), Configuration.seedFilePath, schemaVersionAtURL,
// and small parity items (SortDescriptor.description, ObjectId literals,
// ThreadSafeReference.isInvalidated).

@Suite("Realm's file-level API", .serialized)
struct RealmFileAPITests {
    @Test("Vault(fileURL:) opens that file with the default configuration's key and classes")
    func openByURL() throws {
        let directory = try TemporaryDirectory("file-api-url")
        let saved = Vault.Configuration.defaultConfiguration
        defer { Vault.Configuration.defaultConfiguration = saved }
        Vault.Configuration.defaultConfiguration = Vault.Configuration(encryptionKey: testKey, objectTypes: [Ticket.self])
        let url = directory.file("by-url.vault")
        let vault = try Vault(fileURL: url)
        try vault.write { vault.add(Ticket(value: ["id": 7, "title": "opened by URL"])) }
        #expect(FileManager.default.fileExists(atPath: url.path))
        let reopened = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self]))
        #expect(reopened.object(ofType: Ticket.self, forPrimaryKey: 7)?.title == "opened by URL")
    }

    @Test("fileExists(for:) is false before the first open, true after, false in memory")
    func fileExists() throws {
        let directory = try TemporaryDirectory("file-api-exists")
        let configuration = Vault.Configuration(fileURL: directory.file("e.vault"), encryptionKey: testKey, objectTypes: [Ticket.self])
        #expect(!Vault.fileExists(for: configuration))
        _ = try Vault(configuration: configuration)
        #expect(Vault.fileExists(for: configuration))
        #expect(!Vault.fileExists(for: Vault.Configuration(inMemoryIdentifier: "exists-\(UUID())", objectTypes: [Ticket.self])))
    }

    @Test("seedFilePath: a missing vault starts as a copy of the seed; an existing one is kept; a missing seed is an error")
    func seedFile() throws {
        let directory = try TemporaryDirectory("file-api-seed")
        let source = try Vault(configuration: Vault.Configuration(fileURL: directory.file("source.vault"), encryptionKey: testKey, objectTypes: [Ticket.self]))
        try source.write { source.add(Ticket(value: ["id": 1, "title": "from the seed"])) }
        let seed = directory.file("seed.vault")
        try source.writeCopy(toFile: seed, encryptionKey: testKey)

        var configuration = Vault.Configuration(fileURL: directory.file("app/seeded.vault"), encryptionKey: testKey, objectTypes: [Ticket.self])
        configuration.seedFilePath = seed
        do {
            let seeded = try Vault(configuration: configuration)
            #expect(seeded.object(ofType: Ticket.self, forPrimaryKey: 1)?.title == "from the seed")
            try seeded.write { seeded.object(ofType: Ticket.self, forPrimaryKey: 1)?.title = "changed after seeding" }
        }
        let again = try Vault(configuration: configuration)
        #expect(again.object(ofType: Ticket.self, forPrimaryKey: 1)?.title == "changed after seeding", "an existing file is never replaced by the seed")

        var missing = Vault.Configuration(fileURL: directory.file("other.vault"), encryptionKey: testKey, objectTypes: [Ticket.self])
        missing.seedFilePath = directory.file("no-such-seed.vault")
        #expect(throws: Vault.Error.self) { _ = try Vault(configuration: missing) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("other.vault").path))
    }

    @Test("writeCopy(configuration:) seals the copy under the configuration's key (or its key store's); refuses an existing file, memory and a bad key")
    func writeCopyToConfiguration() throws {
        let directory = try TemporaryDirectory("file-api-copy")
        let source = try Vault(configuration: Vault.Configuration(fileURL: directory.file("source.vault"), encryptionKey: testKey, objectTypes: [Ticket.self]))
        try source.write { for id in 1...3 { source.add(Ticket(value: ["id": id, "title": "ticket \(id)"])) } }

        let otherKey = Data((0..<64).map { UInt8(255 - $0) })
        let target = Vault.Configuration(fileURL: directory.file("copy.vault"), encryptionKey: otherKey, objectTypes: [Ticket.self])
        try source.writeCopy(configuration: target)
        let copy = try Vault(configuration: target)
        #expect(copy.objects(Ticket.self).sorted(byKeyPath: "id").map(\.title) == ["ticket 1", "ticket 2", "ticket 3"])
        // Sealed under the configuration's key, not the source's.
        #expect(throws: Vault.Error.self) {
            _ = try Vault(configuration: Vault.Configuration(fileURL: directory.file("copy.vault"), encryptionKey: testKey, objectTypes: [Ticket.self]))
        }
        // Never over an existing file.
        do {
            try source.writeCopy(configuration: target)
            Issue.record("a copy over an existing file was written")
        } catch let error as Vault.Error {
            #expect(error.code == .fileExists)
        }

        // A key store's key, by identifier.
        let keys = try FileKeyStore(directory: directory.file("keys"))
        let storedKey = try MasterKey.generate()
        try keys.storeKey(storedKey, identifier: "copy")
        var fromStore = Vault.Configuration(fileURL: directory.file("store-copy.vault"), objectTypes: [Ticket.self])
        fromStore.keyStore = keys
        fromStore.keyIdentifier = "copy"
        try source.writeCopy(configuration: fromStore)
        #expect(try Vault(configuration: fromStore).objects(Ticket.self).count == 3)

        // Nothing is written for an in-memory configuration or a key of the wrong length.
        #expect(throws: Vault.Error.self) { try source.writeCopy(configuration: Vault.Configuration(inMemoryIdentifier: "copy-\(UUID())", objectTypes: [Ticket.self])) }
        let shortKey = Vault.Configuration(fileURL: directory.file("short.vault"), encryptionKey: Data(repeating: 1, count: 16), objectTypes: [Ticket.self])
        #expect(throws: Vault.Error.self) { try source.writeCopy(configuration: shortKey) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("short.vault").path))
    }

    @Test("objectSchema is never nil: an unmanaged object's is its class's, a managed or dynamic object's the vault's")
    func objectSchemaOfObjects() throws {
        let directory = try TemporaryDirectory("file-api-schema")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("s.vault"), encryptionKey: testKey, objectTypes: [Ticket.self]))
        let unmanaged = Ticket(value: ["id": 1, "title": "t"])
        #expect(unmanaged.objectSchema.className == "Ticket" && unmanaged.objectSchema.primaryKeyProperty?.name == "id")
        try vault.write { vault.add(unmanaged) }
        #expect(unmanaged.objectSchema.properties.map(\.name) == Ticket().objectSchema.properties.map(\.name))
        let dynamic = try #require(vault.dynamicObjects("Ticket").first)
        #expect(dynamic.objectSchema.className == "Ticket")
        #expect(dynamic.objectSchema.properties.contains { $0.name == "title" })
    }

    @Test("schemaVersionAtURL reads the stored schema version without the models; a wrong key or a missing file throws")
    func schemaVersion() throws {
        let directory = try TemporaryDirectory("file-api-version")
        let url = directory.file("versioned.vault")
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 3, objectTypes: [Ticket.self]))
            try vault.write { vault.add(Ticket(value: ["id": 1])) }
        }
        #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 3)
        var wrongKey = testKey
        wrongKey[0] ^= 0xFF
        #expect(throws: (any Error).self) { _ = try schemaVersionAtURL(url, encryptionKey: wrongKey) }
        #expect(throws: (any Error).self) { _ = try schemaVersionAtURL(directory.file("absent.vault"), encryptionKey: testKey) }
    }

    @Test("SortDescriptor prints as Realm's; ObjectId(\"…\") parses a literal; a thread-safe reference stays resolvable")
    func smallParity() throws {
        #expect(SortDescriptor(keyPath: "name").description == "SortDescriptor(keyPath: name, direction: ascending)")
        #expect(SortDescriptor(keyPath: "age", ascending: false).description == "SortDescriptor(keyPath: age, direction: descending)")
        let literal = ObjectId("507f191e810c19729de860ea")
        #expect(literal == (try ObjectId(string: "507f191e810c19729de860ea")))
        #expect(literal.description == "507f191e810c19729de860ea")

        let directory = try TemporaryDirectory("file-api-reference")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("r.vault"), encryptionKey: testKey, objectTypes: [Ticket.self]))
        try vault.write { vault.add(Ticket(value: ["id": 1])) }
        let reference = ThreadSafeReference(to: try #require(vault.object(ofType: Ticket.self, forPrimaryKey: 1)))
        #expect(vault.resolve(reference) != nil)
        #expect(!reference.isInvalidated, "VaultKit references may be resolved again")
        #expect(vault.resolve(reference) != nil)
    }
}

/// Generic code as Realm apps write it against `RealmCollectionValue`.
func firstTwo<T: VaultCollectionValue>(_ list: List<T>) -> [T] { Array(list.prefix(2)) }

@Suite("Realm's migration and collection-value API")
struct RealmMigrationAPITests {
    @Test("performMigration(for:) runs the migration block once, before any use; VaultCollectionValue constrains generic code")
    func performMigration() throws {
        let directory = try TemporaryDirectory("file-api-migrate")
        let url = directory.file("m.vault")
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self]))
            try vault.write { vault.add(Ticket(value: ["id": 1, "title": "old"])) }
        }
        let runs = Locked(0)
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 2, objectTypes: [Ticket.self])
        configuration.migrationBlock = { migration, oldVersion in
            runs.withLock { $0 += 1 }
            migration.enumerateObjects(ofType: "Ticket") { _, new in new?["title"] = "migrated from \(oldVersion)" }
        }
        try Vault.performMigration(for: configuration)
        #expect(runs.withLock { $0 } == 1)
        #expect(try schemaVersionAtURL(url, encryptionKey: testKey) == 2)
        let vault = try Vault(configuration: configuration)
        #expect(vault.object(ofType: Ticket.self, forPrimaryKey: 1)?.title == "migrated from 0")
        #expect(runs.withLock { $0 } == 1, "opening again does not migrate again")

        let list = List<Int>()
        list.append(objectsIn: [4, 5, 6])
        #expect(firstTwo(list) == [4, 5])
    }
}
