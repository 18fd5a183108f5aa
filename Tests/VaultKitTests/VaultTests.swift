import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

@Suite("Vault: models, schema, writes and reads")
struct VaultTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory() }

    @Test("the schema is discovered once per class, with mapping, keys, indexes and links; non-@Persisted properties are ignored")
    func schemaDiscovery() throws {
        let vault = try Vault(configuration: configuration(.inMemory, scratch, types: [Person.self]))
        let schema = try #require(vault.schema["Person"])
        #expect(vault.schema.objectSchema.map(\.className) == ["Person"])
        #expect(schema["firstName"]?.columnName == "first_name")
        #expect(schema.properties.map(\.name) == ["_id", "firstName", "email", "heightCm", "status", "bestFriend"])
        #expect(schema["firstName"]?.storedName == "first_name")
        #expect(schema.primaryKeyProperty?.name == "_id")
        #expect(schema["email"]?.isIndexed == true)
        #expect(schema["heightCm"]?.isOptional == true)
        #expect(schema["status"]?.type == .string)
        #expect(schema["bestFriend"]?.objectClassName == "Person")
        #expect(schema["scratch"] == nil)
        let dog = Dog().objectSchema
        #expect(dog.properties.map(\.name) == ["name", "age", "owner"], "inherited properties first")
    }

    @Test("every property type round-trips, required and optional", arguments: StorageMode.writable)
    func allTypesRoundTrip(mode: StorageMode) throws {
        let config = configuration(mode, scratch, types: [AllTypes.self])
        let vault = try Vault(configuration: config)
        let full = AllTypes()
        full.bool = true; full.int = Int.min; full.int8 = -8; full.int16 = 16_000; full.int32 = -32; full.int64 = Int64.max
        full.float = 3.25; full.double = -1e300; full.string = "héllo 🎉 nul\u{0}inside"; full.data = Data([0, 1, 255])
        full.date = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345); full.uuid = UUID(); full.decimal = Decimal(string: "12345.6789")!
        full.objectId = ObjectId(); full.status = .archived; full.priority = .high
        full.optBool = false; full.optInt = 7; full.optInt8 = 8; full.optInt16 = 16; full.optInt32 = 32; full.optInt64 = 64
        full.optFloat = 1.5; full.optDouble = 2.5; full.optString = ""; full.optData = Data(); full.optDate = .distantFuture
        full.optUUID = UUID(); full.optDecimal = Decimal(string: "-0.001")!; full.optObjectId = ObjectId(); full.optStatus = .active; full.optPriority = .low
        let empty = AllTypes()
        let expectedFull = AllTypes(value: full)
        let emptyID = empty._id
        try vault.write {
            vault.add(full)
            vault.add(empty)
        }
        func check(_ vault: Vault) throws {
            let stored = try #require(vault.object(ofType: AllTypes.self, forPrimaryKey: expectedFull._id))
            for name in ["bool", "int", "int8", "int16", "int32", "int64", "float", "double", "string", "data", "date", "uuid", "decimal", "objectId",
                         "optBool", "optInt", "optInt8", "optInt16", "optInt32", "optInt64", "optFloat", "optDouble", "optString", "optData",
                         "optDate", "optUUID", "optDecimal", "optObjectId"] {
                #expect("\(stored[name] ?? "nil")" == "\(expectedFull[name] ?? "nil")", "\(name)")
            }
            #expect(stored.status == .archived && stored.priority == .high && stored.optStatus == .active && stored.optPriority == .low)
            #expect(stored.date == expectedFull.date, "dates round-trip exactly")
            #expect(stored.string == "héllo 🎉 nul\u{0}inside", "a NUL inside a string is kept (bound with its length)")
            #expect(vault.objects(AllTypes.self).filter("string == %@", "héllo 🎉 nul\u{0}inside").count == 1)
            let blank = try #require(vault.object(ofType: AllTypes.self, forPrimaryKey: emptyID))
            #expect(blank.optBool == nil && blank.optInt == nil && blank.optString == nil && blank.optData == nil && blank.optDate == nil)
            #expect(blank.optUUID == nil && blank.optDecimal == nil && blank.optObjectId == nil && blank.optStatus == nil && blank.optPriority == nil)
            #expect(blank.int == 0 && blank.string == "" && blank.status == .active)
        }
        try check(vault)
        if mode == .encryptedFile {
            var readOnly = config
            readOnly.readOnly = true
            try check(try Vault(configuration: readOnly))
        }
    }

    @Test("update policies: .error fails the write, .modified and .all update", arguments: StorageMode.writable)
    func updatePolicies(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: [Person.self]))
        let ada = Person(firstName: "Ada", email: "ada@x.org")
        try vault.write { vault.add(ada) }
        let duplicate = Person(value: ["_id": ada._id, "firstName": "Imposter"])
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write {
                vault.add(Person(firstName: "rolled back"))
                vault.add(duplicate)
            }
        }
        guard case .duplicatePrimaryKey(let className, _)? = error else { Issue.record("expected duplicatePrimaryKey"); return }
        #expect(className == "Person")
        #expect(vault.objects(Person.self).count == 1, "the whole write rolled back")
        // The row buffer built for the refused insert is freed, never handed to the object.
        #expect(duplicate.vault == nil && duplicate.firstName == "Imposter", "the refused object stays unmanaged, with its values")
        try vault.write { vault.add(duplicate, update: .modified) }
        #expect(duplicate.vault != nil && duplicate.firstName == "Imposter" && ada.firstName == "Imposter")
        #expect(duplicate.email == "", "add(update: .modified) writes every property of the object passed")
        try vault.write { (duplicate.firstName, duplicate.email) = ("Ada", "ada@x.org") }

        try vault.write { vault.create(Person.self, value: ["_id": ada._id, "firstName": "Ada L."], update: .modified) }
        #expect(ada.firstName == "Ada L.", "managed instances see the update")
        #expect(ada.email == "ada@x.org", "create from a dictionary writes only the keys given")
        let replacement = try vault.write { vault.create(Person.self, value: ["_id": ada._id, "firstName": "Ada K.", "email": "k@x.org"], update: .all) }
        #expect(replacement.isSameObject(as: ada))
        #expect(ada.firstName == "Ada K." && ada.email == "k@x.org")
        // add(_:update: .modified) compares every property of the object passed.
        try vault.write { vault.add(Person(value: ["_id": ada._id, "firstName": "Ada K."]), update: .modified) }
        #expect(ada.firstName == "Ada K." && ada.email == "")
        #expect(vault.objects(Person.self).count == 1)
    }

    @Test("managed objects are live, deleted objects keep their values, links follow and nil out", arguments: StorageMode.writable)
    func liveObjectsAndLinks(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: [Person.self]))
        let ada = Person(firstName: "Ada")
        let grace = Person(firstName: "Grace")
        ada.bestFriend = grace                            // unmanaged link: added with ada
        try vault.write { vault.add(ada) }
        #expect(vault.objects(Person.self).count == 2)
        #expect(grace.vault != nil, "the linked object was added too")
        let again = try #require(vault.object(ofType: Person.self, forPrimaryKey: ada._id))
        #expect(again.bestFriend?.firstName == "Grace")
        try vault.write { again.firstName = "Countess" }
        #expect(ada.firstName == "Countess", "every managed instance sees the write")
        #expect(ada == again && ada.hashValue == again.hashValue)

        try vault.write { vault.delete(grace) }
        #expect(grace.isInvalidated)
        #expect(grace.firstName == "Grace", "a deleted object keeps its last values")
        #expect(ada.bestFriend == nil, "links to a deleted object become nil")
        #expect(vault.objects(Person.self).count == 1)
    }

    @Test("propertiesMapping: the column is the stored name, the API uses the Swift name")
    func remapping() throws {
        let vault = try Vault(configuration: configuration(.encryptedFile, scratch, types: [Person.self]))
        try vault.write { vault.add(Person(firstName: "Ada")) }
        let columns = try vault.session.database.read { db in
            try db.fetchAll("SELECT name FROM pragma_table_info('Person')").compactMap { $0[0].string }
        }
        #expect(columns.contains("first_name") && !columns.contains("firstName"))
        #expect(vault.objects(Person.self).sorted(byKeyPath: "firstName").first?.firstName == "Ada")
    }

    @Test("results: count, order, random access, iteration, first and last", arguments: StorageMode.writable)
    func results(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: [Person.self]))
        try vault.write {
            for i in 0..<1000 { vault.add(Person(firstName: String(format: "name-%04d", (i * 7919) % 1000))) }
        }
        let people = vault.objects(Person.self)
        #expect(people.count == 1000)
        let sorted = people.sorted(byKeyPath: "firstName")
        #expect(sorted.first?.firstName == "name-0000")
        #expect(sorted.last?.firstName == "name-0999")
        #expect(sorted[500].firstName == "name-0500")
        #expect(Array(sorted[100..<103]).map(\.firstName) == ["name-0100", "name-0101", "name-0102"])
        #expect(Array(sorted).map(\.firstName) == (0..<1000).map { String(format: "name-%04d", $0) })
        #expect(sorted.sorted(byKeyPath: "firstName", ascending: false).first?.firstName == "name-0999")
        try vault.write { vault.delete(sorted.prefix(10)) }
        #expect(people.count == 990, "results are live")
        #expect(sorted.first?.firstName == "name-0010")
        try vault.write { vault.deleteAll() }
        #expect(vault.isEmpty)
    }

    @Test("inherited properties and classes without a primary key")
    func inheritance() throws {
        let vault = try Vault(configuration: configuration(.inMemory, scratch, types: [Dog.self]))
        let dog = Dog()
        dog.name = "Rex"; dog.age = 3; dog.owner = Person(firstName: "Ada")
        try vault.write { vault.add(dog) }
        let stored = try #require(vault.objects(Dog.self).first)
        #expect(stored.name == "Rex" && stored.age == 3 && stored.owner?.firstName == "Ada")
        #expect(vault.objects(Person.self).count == 1, "linked classes are registered automatically")
    }

    @Test("invalid models fail at open, naming the class and property")
    func invalidModels() throws {
        let cases: [(ObjectBase.Type, String)] = [
            (TwoPrimaryKeys.self, "Invalid model TwoPrimaryKeys.b: a class can have only one primary key"),
            (EmbeddedWithKey.self, "Invalid model EmbeddedWithKey.id: embedded objects cannot have a primary key"),
            (BadPrimaryKeyType.self, "Invalid model BadPrimaryKeyType.score: a primary key must be"),
            (AClassWhoseNameIsMuchTooLongForAVaultTableNameLimitOfFiftySevenBytes.self, "class names are limited to 57 bytes"),
            (LongPropertyName.self, "property names are limited to 63 bytes"),
            (BadMapping.self, "Invalid model BadMapping.missing: propertiesMapping() names a property that is not @Persisted"),
        ]
        for (type, message) in cases {
            let error = #expect(throws: Vault.Error.self) {
                _ = try Vault(configuration: configuration(.inMemory, scratch, types: [type]))
            }
            #expect(error?.description.contains(message) == true, "\(type): \(error?.description ?? "no error")")
        }
    }

    @Test("a changed stored schema is a migration-required error listing the differences")
    func migrationRequired() throws {
        var config = configuration(.encryptedFile, scratch, types: [Person.self])
        do {
            let vault = try Vault(configuration: config)
            try vault.write { vault.add(Person(firstName: "Ada")) }
            // Pretend an older version of Person had another column and no email.
            try vault.session.database.write { db in
                try db.execute("UPDATE _vaultkit_schema SET definition = replace(definition, 'email string required indexed', 'nickname string optional plain') WHERE class_name = 'Person'")
            }
        }
        let wrapped = #expect(throws: Vault.Error.self) { _ = try Vault(configuration: config) }
        #expect(wrapped?.code == .schemaMismatch && wrapped?.errorCode == 10)
        let error = wrapped?.underlyingError as? VaultObjectError
        guard case .migrationRequired(_, _, _, let differences)? = error else { Issue.record("expected migrationRequired, got \(String(describing: error))"); return }
        #expect(differences == ["Person.email was added (string required indexed)", "Person.nickname was removed (was string optional plain)"])
        #expect(error?.description.contains("Increase schemaVersion") == true)

        config.deleteVaultIfMigrationNeeded = true
        let fresh = try Vault(configuration: config)
        #expect(fresh.objects(Person.self).isEmpty)
    }

    @Test("a vault without a key is an error that says how to give one")
    func missingKey() throws {
        let error = #expect(throws: Vault.Error.self) {
            _ = try Vault(configuration: Vault.Configuration(fileURL: scratch.file("nokey.vault"), objectTypes: [Person.self]))
        }
        guard case .missingKey? = error?.underlyingError as? VaultError else { Issue.record("expected missingKey"); return }
        let short = #expect(throws: Vault.Error.self) {
            _ = try Vault(configuration: Vault.Configuration(fileURL: scratch.file("short.vault"), encryptionKey: Data(count: 32)))
        }
        #expect(short?.code == .invalidInput && short?.description.contains("64 bytes") == true)
    }
}

/// Realm's `ObjectKeyIdentifiable` reaches embedded objects too.
extension Address: ObjectKeyIdentifiable {}

@Suite("Identity")
struct IdentityTests {
    @Test("a model's own `id` property works, and ObjectKeyIdentifiable gives stable identity")
    func ownIdentifier() throws {
        let vault = try Vault(configuration: Vault.Configuration(inMemoryIdentifier: "identity-\(UUID().uuidString)", objectTypes: [Task.self, Ticket.self]))
        let ticket = Ticket(value: ["id": 42, "title": "first"])
        let task = Task()
        let unmanagedID = task.id
        try vault.write {
            vault.add(ticket)
            vault.add(task)
        }
        #expect(vault.object(ofType: Ticket.self, forPrimaryKey: 42)?.title == "first")
        #expect(task.id != unmanagedID)
        #expect(vault.objects(Task.self).first?.id == task.id)
        let other = Task()
        try vault.write { vault.add(other) }
        #expect(other.id != task.id, "unique within the class")
        // Embedded objects conform too (Realm's ObjectKeyIdentifiable covers every ObjectBase).
        let address = Address()
        #expect(address.id == UInt64(UInt(bitPattern: Unmanaged.passUnretained(address).toOpaque())))
        #expect(Set<UInt64>([task.id, address.id]).count == 2)
    }
}

@Suite("Read-only vaults")
struct ReadOnlyVaultTests {
    @Test("a class with no table in a read-only vault reads as empty, and writes are refused")
    func absentClass() throws {
        let scratch = try TemporaryDirectory()
        let url = scratch.file("ro.vault")
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Person.self]))
            try vault.write { vault.add(Person(firstName: "Ada")) }
        }
        // Opened read-only without objectTypes: Dog was never stored.
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, readOnly: true))
        #expect(vault.objects(Dog.self).isEmpty)
        #expect(vault.objects(Dog.self).first == nil)
        #expect(vault.objects(Person.self).first?.firstName == "Ada")
        #expect(throws: VaultError.self) { try vault.write { vault.add(Person(firstName: "x")) } }
    }
}

@Suite("Integer primary keys are the row id")
struct RowIDPrimaryKeyTests {
    @Test("a required Int primary key is stored as the row id: duplicates, update policies, links, deletes, negative keys")
    func rowIDKey() throws {
        let scratch = try TemporaryDirectory()
        let url = scratch.file("rowid.vault")
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self, QPet.self, QPerson.self, QAddress.self])
        do {
            let vault = try Vault(configuration: configuration)
            try vault.write {
                vault.add(Ticket(value: ["id": 7, "title": "seven"]))
                vault.add(Ticket(value: ["id": -3, "title": "minus three"]))
                vault.add(Ticket(value: ["id": 0, "title": "zero"]))
            }
            // A duplicate key is the typed error, and nothing of the transaction is kept.
            do {
                try vault.write {
                    vault.add(Ticket(value: ["id": 100, "title": "new"]))
                    vault.add(Ticket(value: ["id": 7, "title": "again"]))
                }
                Issue.record("a duplicate Int primary key was accepted")
            } catch let error as VaultObjectError {
                guard case .duplicatePrimaryKey(let className, let value) = error else { Issue.record("\(error)"); return }
                #expect(className == "Ticket" && value == "id", "the property is named, never the stored value")
                #expect(!error.description.contains("7"))
            }
            #expect(vault.object(ofType: Ticket.self, forPrimaryKey: 100) == nil)
            try vault.write { vault.add(Ticket(value: ["id": 7, "title": "updated"]), update: .modified) }
            #expect(vault.object(ofType: Ticket.self, forPrimaryKey: 7)?.title == "updated")
            #expect(vault.objects(Ticket.self).sorted(byKeyPath: "id").map(\.id) == [-3, 0, 7])
            #expect(vault.objects(Ticket.self).filter("id < 1").map(\.title) == ["minus three", "zero"])
            // Links and backlinks to an Int-keyed class.
            try vault.write {
                let pet = vault.create(QPet.self, value: ["id": 42, "name": "Rex"])
                let owner = vault.create(QPerson.self, value: ["id": 9, "name": "Ada"])
                owner.pet = pet
                owner.pets.append(pet)
            }
            #expect(vault.object(ofType: QPet.self, forPrimaryKey: 42)?.owners.map(\.id) == [9])
            #expect(vault.objects(QPerson.self).filter("pet.id == 42").count == 1)
            try vault.write { vault.delete(vault.objects(QPet.self)) }
            #expect(vault.object(ofType: QPerson.self, forPrimaryKey: 9)?.pet == nil)
            #expect(vault.object(ofType: QPerson.self, forPrimaryKey: 9)?.pets.count == 0)
        }
        // Reopened: the keys are still the row ids.
        let reopened = try Vault(configuration: configuration)
        #expect(reopened.object(ofType: Ticket.self, forPrimaryKey: -3)?.title == "minus three")
        #expect(reopened.objects(Ticket.self).map(\.id) == [-3, 0, 7])
    }
}

@Suite("Write transactions hold the writer")
struct WriteTransactionTests {
    @Test("an open write transaction is invisible to another connection until committed; a vault released mid-write rolls back")
    func writerHeldForTheTransaction() throws {
        let scratch = try TemporaryDirectory()
        let url = scratch.file("held.vault")
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self])
        let vault = try Vault(configuration: configuration)
        vault.beginWrite()
        vault.add(Ticket(value: ["id": 1, "title": "one"]))
        // A vault on another thread is another instance with its own connections.
        let countElsewhere: @Sendable () throws -> Int = {
            try Vault(configuration: configuration).objects(Ticket.self).count
        }
        #expect(try onNewThread(countElsewhere) == 0, "the uncommitted insert is not visible to another connection")
        try vault.commitWrite()
        #expect(try onNewThread(countElsewhere) == 1)

        // Released in the middle of a write (on its own thread, so its instance
        // is not shared with this one): rolled back, the file stays usable.
        try onNewThread {
            let abandoned = try Vault(configuration: configuration)
            abandoned.beginWrite()
            abandoned.add(Ticket(value: ["id": 2, "title": "two"]))
        }
        #expect(vault.refresh() == false, "the abandoned write committed nothing")
        #expect(vault.objects(Ticket.self).map(\.id) == [1])
        try vault.write { vault.add(Ticket(value: ["id": 3, "title": "three"])) }
        #expect(vault.objects(Ticket.self).map(\.id) == [1, 3])
    }
}

@Suite("Configuration.durability")
struct DurabilitySettingTests {
    @Test("full (the default) fsyncs every commit; normal sets SQLite's synchronous = NORMAL; vaults of different durability do not share a session")
    func durability() throws {
        let directory = try TemporaryDirectory("durability-setting")
        var configuration = Vault.Configuration(fileURL: directory.file("d.vault"), encryptionKey: testKey, objectTypes: [TItem.self, TBox.self])
        let full = try Vault(configuration: configuration)
        #expect(try full.session.database.withConnection { try $0.fetchOne("PRAGMA synchronous")?[0].int64 } == 2)
        configuration.durability = .normal
        let normal = try Vault(configuration: configuration)
        #expect(normal != full)
        #expect(try normal.session.database.withConnection { try $0.fetchOne("PRAGMA synchronous")?[0].int64 } == 1)
        try normal.write { normal.add(TItem(1, "fast")) }
        full.refresh()
        #expect(full.objects(TItem.self).count == 1)
    }
}

@Suite("Vault.deleteFiles(for:)")
struct DeleteFilesTests {
    @Test("refused while the vault is open in this process (nothing deleted); then deletes the file and its companions; false when there is nothing")
    func deleteFiles() throws {
        let directory = try TemporaryDirectory("delete-files")
        let configuration = Vault.Configuration(fileURL: directory.file("gone.vault"), encryptionKey: testKey, objectTypes: [TItem.self, TBox.self])
        do {
            let vault = try Vault(configuration: configuration)
            try vault.write { vault.add(TItem(1, "one")) }
            #expect { try Vault.deleteFiles(for: configuration) } throws: { error in
                // Realm's code: alreadyOpen; VaultKit's error underneath: inUse.
                guard let error = error as? Vault.Error, case .inUse? = error.underlyingError as? VaultError else { return false }
                return error.code == .alreadyOpen
            }
            #expect(vault.objects(TItem.self).count == 1)
        }
        let url = directory.file("gone.vault")
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try Vault.deleteFiles(for: configuration))
        for suffix in ["", "-wal", "-shm", ".lock"] { #expect(!FileManager.default.fileExists(atPath: url.path + suffix)) }
        #expect(try !Vault.deleteFiles(for: configuration))
        #expect(try !Vault.deleteFiles(for: Vault.Configuration(inMemoryIdentifier: "nothing", encryptionKey: testKey)))
        #expect(try Vault(configuration: configuration).objects(TItem.self).isEmpty, "a new, empty vault opens there")
    }
}
