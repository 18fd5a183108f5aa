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
            migration.renameProperty(onType: "Contact", from: "nickname", to: "handle")
            migration.renameProperty(onType: "Contact", from: "phones", to: "numbers")
            migration.enumerateObjects(ofType: "Contact") { old, new in
                guard let old, let new else { return }
                new["fullName"] = "\(old["firstName"] as? String ?? "?") \(old["lastName"] as? String ?? "?")"
                if (old["age"] as? Int ?? 0) > 23 { new["age"] = nil }
                if old["id"] as? Int == 3 { migration.delete(new) }
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
        #expect(throws: VaultObjectError.self) {
            try onNewThread { _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV1.Contact.self])) }
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

@Suite("Concurrent first open")
struct ConcurrentFirstOpenTests {
    /// Rounds of the test (VAULTKIT_FIRST_OPEN_ROUNDS overrides).
    private var rounds: Int { ProcessInfo.processInfo.environment["VAULTKIT_FIRST_OPEN_ROUNDS"].flatMap(Int.init) ?? 20 }

    @Test("8 processes opening (and writing to) a vault that does not exist yet all succeed, every round")
    func eightProcesses() throws {
        let directory = try TemporaryDirectory("first-open")
        let hex = testKey.map { String(format: "%02x", $0) }.joined()
        let helper = try helperExecutable()
        for round in 0..<rounds {
            let url = directory.file("round-\(round).vault")
            var processes: [(Process, Pipe)] = []
            for id in 1...8 {
                let process = Process()
                process.executableURL = helper
                process.arguments = ["write-item", url.path, "\(id)", "item \(id)"]
                let stdin = Pipe(), stdout = Pipe()
                process.standardInput = stdin
                process.standardOutput = stdout
                process.standardError = stdout
                try process.run()
                stdin.fileHandleForWriting.write(Data((hex + "\n").utf8))
                try stdin.fileHandleForWriting.close()
                processes.append((process, stdout))
            }
            for (process, output) in processes {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0 && text.contains("committed"), "round \(round): \(text)")
            }
            let ids = try onNewThread { () -> [Int] in
                let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self]))
                return vault.objects(NItem.self).map(\.id).sorted()
            }
            #expect(ids == Array(1...8), "round \(round)")
        }
    }
}

@Suite("Migration crash safety")
struct MigrationCrashTests {
    /// Objects migrated (VAULTKIT_MIGRATION_KILL_OBJECTS overrides; 100,000 for the full run).
    private var objectCount: Int { ProcessInfo.processInfo.environment["VAULTKIT_MIGRATION_KILL_OBJECTS"].flatMap(Int.init) ?? 20_000 }

    @Test("SIGKILL at random points of a migration in a child process: the vault always opens at the old version or the new one, with every object")
    func killDuringMigration() throws {
        let directory = try TemporaryDirectory("migration-kill")
        let url = directory.file("kill.vault")
        let backup = directory.file("backup.vault")
        let count = objectCount
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            try vault.write {
                for id in 1...count {
                    let contact = ContactV0.Contact(value: ["id": id, "firstName": "F\(id)", "lastName": "L", "age": id % 90, "nickname": "n"])
                    if id % 10 == 0 { contact.phones.append("p\(id)") }
                    vault.add(contact)
                }
            }
        }
        try FileManager.default.copyItem(at: url, to: backup)
        let hex = testKey.map { String(format: "%02x", $0) }.joined()
        let helper = try helperExecutable()

        // How long an uninterrupted migration takes, to spread the kill points over it.
        let started = DispatchTime.now()
        #expect(try runHelper(["migrate-contacts", url.path], input: hex).contains("migrated"))
        let duration = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        var outcomes = (old: 0, new: 0)
        for point in 0..<20 {
            try restore(backup, to: url)
            let process = Process()
            process.executableURL = helper
            process.arguments = ["migrate-contacts", url.path]
            let stdin = Pipe()
            process.standardInput = stdin
            process.standardOutput = Pipe()
            try process.run()
            stdin.fileHandleForWriting.write(Data((hex + "\n").utf8))
            try stdin.fileHandleForWriting.close()
            usleep(UInt32(duration * 1e6 * Double(point + 1) / 21))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let state = try onNewThread { () -> String in
                let readOnlyOld = Vault.Configuration(fileURL: url, encryptionKey: testKey, readOnly: true, objectTypes: [ContactV0.Contact.self])
                if let old = try? Vault(configuration: readOnlyOld) {
                    let contacts = old.objects(ContactV0.Contact.self)
                    let intact = contacts.count == count && contacts.filter("id == 7").first?.firstName == "F7"
                    return intact ? "old" : "old, damaged"
                }
                let new = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, readOnly: true, schemaVersion: 1, objectTypes: [ContactV1.Contact.self]))
                let contacts = new.objects(ContactV1.Contact.self)
                let complete = contacts.count == count && contacts.filter("fullName == 'F7 L'").count == 1
                    && contacts.filter("fullName == ''").isEmpty && new.object(ofType: ContactV1.Contact.self, forPrimaryKey: 70)?.numbers.first == "p70"
                return complete ? "new" : "new, incomplete"
            }
            #expect(state == "old" || state == "new", "kill point \(point): \(state)")
            if state == "old" { outcomes.old += 1 } else if state == "new" { outcomes.new += 1 }
        }
        #expect(outcomes.old + outcomes.new == 20)
        print("migration kills: \(count) objects, \(String(format: "%.2f", duration)) s uninterrupted; \(outcomes.old) left the old version, \(outcomes.new) the new")
    }

    private func restore(_ backup: URL, to url: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try FileManager.default.copyItem(at: backup, to: url)
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

@Suite("Compact on launch")
struct CompactOnLaunchTests {
    @Test("shouldCompactOnLaunch is asked once per process with the file's size and its used bytes; true compacts it, data intact")
    func compacts() throws {
        let directory = try TemporaryDirectory("compact")
        let url = directory.file("c.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            try vault.write { for id in 1...3_000 { vault.add(ContactV0.Contact(value: ["id": id, "firstName": String(repeating: "x", count: 200)])) } }
            try vault.write { vault.delete(vault.objects(ContactV0.Contact.self).filter("id > 100")) }
        }
        let sizeBefore = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        let asked = Locked<[(Int, Int)]>([])
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self])
        configuration.shouldCompactOnLaunch = { total, used in
            asked.withLock { $0.append((total, used)) }
            return used < total / 2
        }
        let count = try onNewThread { [configuration] () -> Int in
            let vault = try Vault(configuration: configuration)
            let again = try Vault(configuration: configuration)   // the same process: not asked again
            return vault.objects(ContactV0.Contact.self).count + again.objects(ContactV0.Contact.self).count * 0
        }
        #expect(count == 100)
        let calls = asked.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls.first.map { $0.0 == sizeBefore && $0.1 < $0.0 / 2 } == true, "\(calls) for a file of \(sizeBefore) bytes")
        let sizeAfter = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(sizeAfter < sizeBefore / 2, "\(sizeBefore) → \(sizeAfter) bytes")

        var readOnly = configuration
        readOnly.readOnly = true
        #expect(throws: VaultError.self) { try onNewThread { [readOnly] in _ = try Vault(configuration: readOnly) } }
    }
}

@Suite("Schema changed by another process")
struct ExternalSchemaChangeTests {
    @Test("two processes, one migrating: the other keeps reading its version, its writes throw migration required; a new Vault with the new models reads the migrated data")
    func otherProcessMigrates() throws {
        let directory = try TemporaryDirectory("external-migration")
        let url = directory.file("x.vault")
        let hex = testKey.map { String(format: "%02x", $0) }.joined()
        let outcome = try onNewThread { () -> [String] in
            var seen: [String] = []
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [ContactV0.Contact.self]))
            try vault.write { for id in 1...50 { vault.add(ContactV0.Contact(value: ["id": id, "firstName": "F\(id)", "lastName": "L"])) } }
            let contacts = vault.objects(ContactV0.Contact.self)
            seen.append("before \(contacts.count)")
            seen.append(try runHelper(["migrate-contacts", url.path], input: hex).trimmingCharacters(in: .whitespacesAndNewlines))
            seen.append("refresh moved: \(vault.refresh())")
            seen.append("still reads \(contacts.count), \(contacts.filter("id == 7").first?.firstName ?? "?")")
            do {
                try vault.write { vault.add(ContactV0.Contact(value: ["id": 99])) }
                seen.append("write succeeded")
            } catch let error as VaultObjectError {
                if case .migrationRequired(_, _, _, let differences) = error, differences.first?.contains("another process") == true {
                    seen.append("write refused: migration required")
                } else {
                    seen.append("write refused: \(error)")
                }
            }
            return seen
        }
        #expect(outcome == ["before 50", "migrated", "refresh moved: false", "still reads 50, F7", "write refused: migration required"])
        let migrated = try onNewThread { () -> String in
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [ContactV1.Contact.self]))
            return vault.object(ofType: ContactV1.Contact.self, forPrimaryKey: 7)?.fullName ?? "?"
        }
        #expect(migrated == "F7 L")
    }
}
