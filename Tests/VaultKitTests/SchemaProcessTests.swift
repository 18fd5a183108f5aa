import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Schema evolution across processes and launches: concurrent first opens, a
// migration killed midway, another process migrating, compaction at launch.

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
        #expect(throws: Vault.Error.self) { try onNewThread { [readOnly] in _ = try Vault(configuration: readOnly) } }
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
