import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

@Suite("Class discovery without objectTypes")
struct ClassDiscoveryTests {
    @Test("the blog app: no objectTypes, a first write through a three-level link chain and an embedded object; found again at open")
    func blogApp() throws {
        let directory = try TemporaryDirectory("discovery-blog")
        let url = directory.file("blog.vault")
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey)
        configuration.schemaVersion = 1
        let vault = try Vault(configuration: configuration)
        try vault.write {
            let user = BlogUser()
            user.id = 1
            user.name = "Ada"
            user.address = BlogAddress()
            user.address?.city = "London"
            let post = BlogPost()
            post.title = "Engines"
            let tag = BlogTag()
            tag.label = "math"
            tag.category = BlogCategory()
            tag.category?.name = "science"
            post.tags.append(tag)
            user.posts.append(post)
            vault.add(user)
        }
        let user = try #require(vault.object(ofType: BlogUser.self, forPrimaryKey: 1))
        #expect(user.posts.first?.tags.first?.category?.name == "science")
        #expect(user.address?.city == "London")
        #expect(vault.objects(BlogPost.self).first?.authors.first?.name == "Ada")

        // Another instance (another thread) knows every class at open, before any use.
        let known = try onNewThread { [configuration] () -> [String] in
            let reopened = try Vault(configuration: configuration)
            return ["BlogUser", "BlogAddress", "BlogPost", "BlogTag", "BlogCategory"].filter { reopened.schema(named: $0) != nil }
        }
        #expect(known == ["BlogUser", "BlogAddress", "BlogPost", "BlogTag", "BlogCategory"])
    }

    @Test("a property whose default value is another object: discovered, and added with its owner")
    func objectDefault() throws {
        let directory = try TemporaryDirectory("discovery-default")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("k.vault"), encryptionKey: testKey))
        try vault.write { vault.add(Kennel(value: ["name": "north"])) }
        #expect(vault.objects(Kennel.self).first?.resident?.name == "Rex")
        #expect(vault.objects(KennelDog.self).count == 1)
    }

    @Test("a model that changed is met at open: Vault(configuration:) throws migration required, naming the class and the change")
    func mismatchAtOpen() throws {
        let directory = try TemporaryDirectory("discovery-mismatch")
        let url = directory.file("m.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            try vault.write { vault.add(ContactV0.Contact(value: ["id": 1, "firstName": "A"])) }
        }
        let error = try onNewThread { () -> String in
            do {
                _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV1.Contact.self]))
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(error.contains("Migration required") && error.contains("Contact.firstName was removed") && error.contains("Contact.fullName was added"))
    }
}

/// Another private class named "Gadget", with other properties than the stored one.
private final class Gadget: Object {
    @Persisted var label = ""
    @Persisted var weight = 0
}

@Suite("First use of a changed class")
struct FirstUseMismatchTests {
    @Test("a class met at first use whose stored definition differs: the write throws migration required, naming the class and the differences")
    func mismatchInWrite() throws {
        let directory = try TemporaryDirectory("first-use-mismatch")
        let url = directory.file("g.vault")
        try seedGadget(at: url)
        let message = try onNewThread { () -> String in
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey))
            do {
                try vault.write { vault.add(Gadget(value: ["label": "second"])) }
                return "written"
            } catch {
                return "\(error)"
            }
        }
        #expect(message.contains("Migration required") && message.contains("Gadget.weight was added"), "\(message)")
    }
}

@Suite("Migrations")
struct MigrationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("migration") }

    private func seed(_ url: URL, count: Int = 3) throws {
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            try vault.write {
                for id in 1...count {
                    let contact = ContactV0.Contact(value: ["id": id, "firstName": "F\(id)", "lastName": "L\(id)", "age": 20 + id, "nickname": "n\(id)"])
                    contact.phones.append(objectsIn: ["p\(id)a", "p\(id)b"])
                    vault.add(contact)
                }
                for id in 2...count { vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: id)?.friend = vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 1) }
            }
        }
    }

    @Test("additive changes (an optional property, an index) need no version bump; objects, links and lists are kept")
    func automatic() throws {
        let url = directory.file("auto.vault")
        try seed(url)
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0Additive.Contact.self]))
            let contacts = vault.objects(ContactV0Additive.Contact.self).sorted(byKeyPath: "id")
            #expect(contacts.map(\.lastName) == ["L1", "L2", "L3"])
            #expect(contacts.allSatisfy { $0.note == nil })
            #expect(contacts.last?.friend?.id == 1)
            #expect(Array(contacts[1].phones) == ["p2a", "p2b"])
            try vault.write { contacts[0].note = "set" }
            #expect(contacts[0].note == "set")
        }
    }

    @Test("a migration: enumerateObjects with old and new values, renameProperty, create, delete; links and lists survive")
    func migrationBlock() throws {
        let url = directory.file("block.vault")
        try seed(url, count: 4)
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV1.Contact.self])
        configuration.schemaVersion = 2
        let seen = Locked<[UInt64]>([])
        configuration.migrationBlock = { migration, oldVersion in
            seen.withLock { $0.append(oldVersion) }
            #expect(migration.oldSchema["Contact"]?["firstName"]?.type == .string && migration.oldSchema["Contact"]?["phones"]?.isArray == true)
            #expect(migration.oldSchema["Contact"]?.primaryKeyProperty?.name == "id" && migration.newSchema["Contact"]?["fullName"] != nil)
            migration.renameProperty(onType: "Contact", from: "nickname", to: "handle")
            migration.renameProperty(onType: "Contact", from: "phones", to: "numbers")
            migration.enumerateObjects(ofType: "Contact") { old, new in
                guard let old, let new else { return }
                // objectSchema of migration objects (Realm's): the stored class, then the code's.
                #expect(old.objectSchema.className == "Contact" && old.objectSchema["firstName"] != nil && old.objectSchema["fullName"] == nil)
                #expect(new.objectSchema["fullName"] != nil && new.objectSchema["firstName"] == nil)
                new["fullName"] = "\(old["firstName"] as? String ?? "?") \(old["lastName"] as? String ?? "?")"
                if (old["age"] as? Int ?? 0) > 23 { new["age"] = nil }
                if old["id"] as? Int == 3 { migration.delete(new) }
                #expect((old["phones"] as? List<String>).map(Array.init) == ["p\(old["id"] as? Int ?? 0)a", "p\(old["id"] as? Int ?? 0)b"])
                #expect((old["friend"] as? MigrationObject)?["firstName"] as? String == ((old["id"] as? Int) == 1 ? nil : "F1"))
            }
            migration.create("Contact", value: ["id": 10, "fullName": "New One", "handle": "new"])
        }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let contacts = vault.objects(ContactV1.Contact.self).sorted(byKeyPath: "id")
            #expect(contacts.map(\.id) == [1, 2, 4, 10])
            #expect(contacts.map(\.fullName) == ["F1 L1", "F2 L2", "F4 L4", "New One"])
            #expect(contacts.map(\.age) == [21, 22, nil, nil])
            #expect(contacts.map(\.handle) == ["n1", "n2", "n4", "new"])
            #expect(Array(contacts[1].numbers) == ["p2a", "p2b"])
            #expect(contacts[1].friend?.id == 1 && contacts[2].friend?.id == 1)
            #expect(contacts[0].email == nil)
        }
        #expect(seen.withLock { $0 } == [0])
        // Opened again at the same version: nothing to migrate.
        try onNewThread { [configuration] in _ = try Vault(configuration: configuration) }
        #expect(seen.withLock { $0 } == [0])
    }

    @Test("without a higher schemaVersion a non-additive change is refused; a lower one is refused (downgrade)")
    func versionRules() throws {
        let url = directory.file("rules.vault")
        try seed(url)
        #expect {
            try onNewThread { _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV1.Contact.self])) }
        } throws: { error in
            // Realm's `catch Realm.Error.schemaMismatch`, spelled for Vault.
            guard case Vault.Error.schemaMismatch = error else { return false }
            return true
        }
        try onNewThread {
            _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 3, objectTypes: [ContactV1.Contact.self]))
        }
        let message = try onNewThread { () -> String in
            do {
                _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 2, objectTypes: [ContactV1.Contact.self]))
                return "opened"
            } catch { return "\(error)" }
        }
        #expect(message.contains("lower than the stored version 3"))
    }

    @Test("a migration that fails (a duplicate primary key, a value of the wrong type) is rolled back: the old app opens its data intact")
    func failedMigrationLeavesOldFile() throws {
        let url = directory.file("failed.vault")
        try seed(url)
        for failure in ["duplicate", "type"] {
            var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [ContactV1.Contact.self])
            configuration.migrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "Contact") { _, new in
                    if failure == "duplicate" { new?["id"] = 1 } else { new?["fullName"] = 42 }
                }
            }
            let message = try onNewThread { [configuration] () -> String in
                do {
                    _ = try Vault(configuration: configuration)
                    return "opened"
                } catch { return "\(error)" }
            }
            #expect(message.contains("Contact"), "\(failure): \(message)")
            #expect(!message.contains("F1") && !message.contains("L1"), "no stored value in the message")
        }
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            let contacts = vault.objects(ContactV0.Contact.self).sorted(byKeyPath: "id")
            #expect(contacts.map(\.firstName) == ["F1", "F2", "F3"])
            #expect(Array(contacts[2].phones) == ["p3a", "p3b"] && contacts[2].friend?.id == 1)
        }
    }

    @Test("deleteData(forType:) empties a class; a class the code dropped is deleted with its lists")
    func deleteData() throws {
        let url = directory.file("delete.vault")
        try seed(url)
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [ContactV1.Contact.self])
        configuration.migrationBlock = { migration, _ in
            #expect(migration.deleteData(forType: "Contact"))
            #expect(!migration.deleteData(forType: "NoSuchClass"))
        }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            #expect(vault.objects(ContactV1.Contact.self).isEmpty)
            try vault.write { vault.add(ContactV1.Contact(value: ["id": 1, "fullName": "again"])) }
        }
    }
}

@Suite("Schema introspection")
struct SchemaIntrospectionTests {
    @Test("vault.schema has Realm's shapes; a nested class is found again at open; `vault schema` prints the stored schema (text and JSON)")
    func introspection() throws {
        let directory = try TemporaryDirectory("schema-introspection")
        let url = directory.file("s.vault"), keyFile = directory.file("s.vaultkey")
        let key = try MasterKey.generate()
        try FileKeyStore.writeKeyFile(key, identifier: "s", to: keyFile, passphrase: nil)
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) }, schemaVersion: 4))
            try vault.write { vault.add(ContactV0.Contact(value: ["id": 1])) }
            let contact = try #require(vault.schema["Contact"])
            #expect(contact.primaryKeyProperty?.name == "id")
            #expect(contact["phones"]?.isArray == true && contact["friend"]?.objectClassName == "Contact")
        }
        // No objectTypes and no use yet: the nested class is known at open.
        let known = try onNewThread { () -> [String] in
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) }, schemaVersion: 4))
            return vault.schema.objectSchema.map(\.className)
        }
        #expect(known == ["Contact"])

        func runTool(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = try builtExecutable("vault")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return text
        }
        let text = try runTool(["schema", url.path, "--key-file", keyFile.path])
        #expect(text.contains("schema version 4") && text.contains("class Contact") && text.contains("  friend: Contact?")
                && text.contains("  phones: list<string>") && text.contains("  id: int  primary key"), "\(text)")
        let json = try JSONSerialization.jsonObject(with: Data(try runTool(["schema", url.path, "--key-file", keyFile.path, "--json"]).utf8)) as? [String: Any]
        #expect(json?["schemaVersion"] as? Int == 4)
        let classes = json?["classes"] as? [[String: Any]]
        #expect(classes?.first?["name"] as? String == "Contact")
        #expect((classes?.first?["properties"] as? [[String: Any]])?.count == 7)
    }
}

@Suite("Dynamic API")
struct DynamicAPITests {
    @Test("dynamicObjects and dynamicObject(ofType:forPrimaryKey:) read and write by name; Object subscripts set values in a write")
    func dynamicAccess() throws {
        let directory = try TemporaryDirectory("dynamic")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("d.vault"), encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
        try vault.write {
            for id in 1...5 { vault.add(ContactV0.Contact(value: ["id": id, "firstName": "F\(id)", "age": 20 + id])) }
            vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 2)?.friend = vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 1)
        }
        let all = vault.dynamicObjects("Contact")
        #expect(all.count == 5)
        #expect(all.filter("age > 23").sorted(byKeyPath: "id").map { $0["firstName"] as? String } == ["F4", "F5"])
        let two = try #require(vault.dynamicObject(ofType: "Contact", forPrimaryKey: 2))
        #expect(two.className == "Contact" && two["age"] as? Int == 22)
        #expect((two["friend"] as? DynamicObject)?["id"] as? Int == 1, "a dynamic object's link is a dynamic object, as in Realm")
        #expect((two["phones"] as? List<String>)?.isEmpty == true)
        try vault.write {
            two["firstName"] = "Two"
            two["age"] = 30
            two["friend"] = nil
            vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 3)?["nickname"] = "three"
        }
        let typed = try #require(vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 2))
        #expect(typed.firstName == "Two" && typed.age == 30 && typed.friend == nil)
        #expect(vault.object(ofType: ContactV0.Contact.self, forPrimaryKey: 3)?.nickname == "three")
        #expect(vault.dynamicObject(ofType: "Contact", forPrimaryKey: 99) == nil)

        // A wrong type is the write's error, as any failed operation inside a write.
        #expect(throws: VaultObjectError.self) { try vault.write { two["age"] = "thirty" } }
        #expect(typed.age == 30)

        let unmanaged = ContactV0.Contact()
        unmanaged["firstName"] = "U"
        #expect(unmanaged.firstName == "U" && unmanaged["firstName"] as? String == "U")
    }
}

@Suite("Object to EmbeddedObject")
struct EmbeddingMigrationTests {
    private func seed(_ url: URL, sharePart: Bool) throws {
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [PartsV0.Machine.self]))
            try vault.write {
                let machine = PartsV0.Machine(value: ["id": 1])
                let parts = (1...4).map { PartsV0.Part(value: ["label": "p\($0)"]) }
                machine.parts.append(objectsIn: parts[0...1])
                machine.spare = parts[2]
                vault.add(machine)
                vault.add(parts[3])                                   // linked from nowhere
                if sharePart { vault.add(PartsV0.Machine(value: ["id": 2, "spare": parts[0]])) }
            }
        }
    }

    @Test("a class becoming embedded needs a version bump; orphans are deleted, the rest kept and deleted with their parent")
    func becomesEmbedded() throws {
        let directory = try TemporaryDirectory("embedding")
        let url = directory.file("e.vault")
        try seed(url, sharePart: false)
        #expect(throws: Vault.Error.self) {
            try onNewThread { _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [PartsV1.Machine.self])) }
        }
        let outcome = try onNewThread { () -> [String] in
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [PartsV1.Machine.self]))
            let machine = try #require(vault.object(ofType: PartsV1.Machine.self, forPrimaryKey: 1))
            let before = "\(machine.parts.map(\.label)) \(machine.spare?.label ?? "-") \(vault.dynamicObjects("Part").count)"
            try vault.write { vault.delete(machine) }
            return [before, "after delete \(vault.dynamicObjects("Part").count)"]
        }
        #expect(outcome == ["[\"p1\", \"p2\"] p3 3", "after delete 0"])
    }

    @Test("an object linked from two parents cannot become embedded: the migration fails and the file is left as it was")
    func sharedPartRefused() throws {
        let directory = try TemporaryDirectory("embedding-shared")
        let url = directory.file("e.vault")
        try seed(url, sharePart: true)
        let message = try onNewThread { () -> String in
            do {
                _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [PartsV1.Machine.self]))
                return "opened"
            } catch { return "\(error)" }
        }
        #expect(message.contains("Part") && message.contains("more than one place"), "\(message)")
        let parts = try onNewThread { () -> Int in
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [PartsV0.Machine.self]))
            return vault.objects(PartsV0.Part.self).count
        }
        #expect(parts == 4)
    }
}
