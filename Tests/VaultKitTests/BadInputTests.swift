import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Findings of the reliability review (issue "Reliability"), each a regression test.

@Suite("Bad input: clear errors, nothing lost")
struct BadInputTests {
    @Test("fileURL and inMemoryIdentifier: whichever is set last wins; both given to the initialiser is refused at open")
    func locationConflicts() throws {
        let directory = try TemporaryDirectory("bad-config")
        let url = directory.file("c.vault")
        let both = Vault.Configuration(fileURL: url, inMemoryIdentifier: "m", encryptionKey: testKey)
        #expect(throws: Vault.Error.self) { try onNewThread { _ = try Vault(configuration: both) } }

        var fileLast = Vault.Configuration(inMemoryIdentifier: "m2", encryptionKey: testKey)
        fileLast.fileURL = url
        #expect(fileLast.inMemoryIdentifier == nil)
        try onNewThread { [fileLast] in
            let vault = try Vault(configuration: fileLast)
            try vault.write { vault.add(NItem(1, "kept")) }
        }
        #expect(FileManager.default.fileExists(atPath: url.path), "the writes went to the file")

        var memoryLast = Vault.Configuration(fileURL: url, encryptionKey: testKey)
        memoryLast.inMemoryIdentifier = "m3"
        #expect(memoryLast.fileURL == nil)
    }

    @Test("no stored value or query argument in an error message: a duplicate primary key, a %K argument")
    func noValuesInMessages() throws {
        let directory = try TemporaryDirectory("bad-messages")
        let vault = try itemVault(directory)
        try vault.write { vault.add(NOwner(value: ["id": 1, "name": "SSN-123-45-6789"])) }
        do {
            try vault.write { vault.add(NOwner(value: ["id": 1, "name": "other"])) }
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(!"\(error)".contains("SSN") && "\(error)".contains("NOwner"))
        }
        do {
            _ = try vault.objects(NOwner.self).filter("%K == 1", arguments: ["SSN-123-45-6789"])
            Issue.record("a %K argument that is no property was accepted")
        } catch {
            #expect(!error.description.contains("SSN") && error.description.contains("%K"), "\(error)")
        }
        #expect(try vault.objects(NOwner.self).filter("%K == 1", arguments: ["id"]).count == 1)
    }

    @Test("a LIKE pattern SQLite would refuse when the query runs is refused by filter, with a QueryError (never a trap at read time)")
    func longLikePattern() throws {
        let directory = try TemporaryDirectory("bad-like")
        let vault = try itemVault(directory)
        try vault.write { vault.add(NItem(1, "a")) }
        let pattern = String(repeating: "*?", count: 100_000)
        #expect(throws: QueryError.self) { _ = try vault.objects(NItem.self).filter("name LIKE '" + pattern + "'", arguments: []) }
        #expect(throws: QueryError.self) { _ = try vault.objects(NItem.self).filter("name LIKE %@", arguments: [pattern]) }
        #expect(try vault.objects(NItem.self).filter("name LIKE %@", arguments: ["*a*"]).count == 1)
    }
}

@Suite("Reads that throw")
struct CheckedReadTests {
    @Test("on a damaged vault, results.fetch() and object.fetchValues() throw the integrity error instead of stopping the program")
    func damagedPage() throws {
        let directory = try TemporaryDirectory("checked-reads")
        let url = directory.file("d.vault")
        let configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [NItem.self, NOwner.self])
        try onNewThread {
            let vault = try Vault(configuration: configuration)
            try vault.write { for id in 1...3_000 { vault.add(NItem(id, String(repeating: "n", count: 100))) } }
        }
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count - 2_000] ^= 0x01   // inside the last page: item rows
        try bytes.write(to: url)

        let outcome = try onNewThread { () -> [String] in
            let vault = try Vault(configuration: configuration)
            var seen: [String] = []
            do {
                _ = try vault.objects(NItem.self).fetch()
                seen.append("fetched")
            } catch let error as VaultError {
                if case .integrity = error { seen.append("integrity") } else { seen.append("\(error)") }
            }
            let first = try #require(vault.objects(NItem.self).filter("id == 1").first)   // on an intact page
            seen.append(try first.fetchValues() ? "object read" : "object gone")
            return seen
        }
        #expect(outcome == ["integrity", "object read"])
    }
}

@Suite("Creating a vault on a full disk")
struct CreationErrorTests {
    @Test("a failure while a vault is created names the path given (not the hidden temporary file) and says when the disk is full")
    func diskFullAtCreation() throws {
        let directory = try TemporaryDirectory("creation-errors")
        var sawDiskFull = false
        for point in 1...8 {
            let folder = directory.file("p\(point)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let url = folder.appendingPathComponent("v.vault")
            FaultInjection.arm(pathPrefix: folder.path + "/", failAt: point, diskFull: true)
            let message: String
            do {
                _ = try VaultDatabase(configuration: VaultDatabase.Configuration(fileURL: url, masterKey: try MasterKey(bytes: testKey)))
                message = "created"
            } catch {
                message = "\(error)"
            }
            let fired = FaultInjection.disarm(pathPrefix: folder.path + "/").failed
            guard message != "created", fired != nil else { continue }
            #expect(!message.contains("vaultkit-new"), "point \(point): \(message)")
            if fired == .write {
                #expect(message.contains("the disk is full") && message.contains(url.path), "point \(point): \(message)")
                sawDiskFull = true
            }
        }
        #expect(sawDiskFull)
    }
}
