import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

/// Realm's `Realm.Error`, spelled `Vault.Error`: the codes apps switch on, with VaultKit's
/// typed error underneath.
@Suite("Vault.Error: Realm's error codes")
struct VaultErrorTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("vault-error") }

    private func code(_ body: () throws -> Void) -> Vault.Error.Code? {
        do {
            try body()
        } catch let error as Vault.Error {
            return error.code
        } catch {
            Issue.record("not a Vault.Error: \(type(of: error)) \(error)")
        }
        return nil
    }

    @Test func openingFailuresCarryRealmsCodes() throws {
        let url = directory.file("a.vault")
        _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [TItem.self, TBox.self]))
        // A wrong key: invalidDatabase (Realm: "the wrong encryption key was given").
        #expect(code { _ = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: Data(repeating: 1, count: 64))) } == .invalidDatabase)
        // Not a vault at all.
        let junk = directory.file("junk.vault")
        try Data(repeating: 0x41, count: 8192).write(to: junk)
        #expect(code { _ = try Vault(configuration: Vault.Configuration(fileURL: junk, encryptionKey: testKey)) } == .invalidDatabase)
        // A read-only open of a file that is not there.
        #expect(code { _ = try Vault(configuration: Vault.Configuration(fileURL: directory.file("none.vault"), encryptionKey: testKey, readOnly: true)) } == .fileNotFound)
        // schemaVersionAtURL: Realm's codes (testSchemaVersionAtURL): not initialized, and not a regular file.
        #expect(code { _ = try schemaVersionAtURL(directory.file("none.vault"), encryptionKey: testKey) } == .invalidDatabase)
        #expect(code { _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null"), encryptionKey: testKey) } == .fileAccess)
        #expect(code { _ = try schemaVersionAtURL(directory.url, encryptionKey: testKey) } == .fileAccess)
        // A key of the wrong length.
        #expect(code { _ = try Vault(configuration: Vault.Configuration(fileURL: directory.file("b.vault"), encryptionKey: Data(count: 16))) } == .invalidInput)
    }

    @Test("an error from a code alone, thrown by app code inside a write, as realm-swift's tests throw Realm.Error(.fail)")
    func errorFromACode() throws {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("codes.vault"), encryptionKey: testKey, objectTypes: [TItem.self, TBox.self]))
        #expect(throws: Vault.Error(.fail)) {
            try vault.write {
                vault.add(TItem(1, "x"))
                throw Vault.Error(.fail)
            }
        }
        #expect(vault.objects(TItem.self).isEmpty, "the write rolled back")
        #expect(Vault.Error(.fail).code == .fail && Vault.Error(.fail) != Vault.Error(.fileExists))
        #expect("\(Vault.Error(.fileExists))" == "Vault.Error(.fileExists)")
    }

    @Test func realmsCatchPatternsWork() throws {
        let url = directory.file("c.vault")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [TItem.self, TBox.self]))
        let copy = directory.file("copy.vault")
        try vault.writeCopy(toFile: copy)
        var caught = ""
        do {
            try vault.writeCopy(toFile: copy)
        } catch Vault.Error.fileExists {
            caught = "fileExists"
        } catch {
            caught = "other: \(error)"
        }
        #expect(caught == "fileExists")
        do {
            try Vault.deleteFiles(for: vault.configuration)
            Issue.record("deleting the files of an open vault succeeded")
        } catch let error as Vault.Error where error.code == .alreadyOpen {
            #expect(error.localizedDescription.contains("in use"))
            #expect((error.underlyingError as? VaultError) != nil)
        }
        #expect(Vault.Error.fileExists == .fileExists && Vault.Error.Code(rawValue: 20) == .invalidDatabase)
        // Realm's codes with Realm's raw values (RLMError.h), 7 and 11 unused there too.
        #expect(Vault.Error.Code.allCases.map(\.rawValue) == [1, 2, 3, 4, 5, 6, 8, 9, 10] + Array(12...22))
        #expect(Vault.Error.Code(rawValue: 17) == .multipleSyncAgents && Vault.Error.Code(rawValue: 22) == .noSubscriptionForWrite)
    }
}

@Suite("Object.sharedSchema")
struct SharedSchemaTests {
    @Test func aModelsSchema() {
        let schema = TItem.sharedSchema()
        #expect(schema?.className == "TItem")
        #expect(schema?.properties.isEmpty == false)
    }
}
