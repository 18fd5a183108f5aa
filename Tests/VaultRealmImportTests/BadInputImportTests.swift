import Foundation
import RealmFileReader
import Testing
import VaultCore
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// Wrong keys, truncated, damaged and foreign files: a typed error, and no vault (nor any
/// other file) left at the destination.
@Suite("Realm import: bad input writes nothing")
struct BadInputImportTests {
    /// Imports `source` into a fresh directory; returns the error and checks that nothing was written.
    private func failedImport(_ source: URL, key: Data? = nil, _ note: String = "") throws -> RealmImportError? {
        let directory = try TemporaryDirectory("realm-import-bad")
        let destination = directory.file("out.vault")
        do {
            try Vault.importRealm(at: source, encryptionKey: key, into: ImportFixtures.configuration(destination))
        } catch {
            #expect(try ImportFixtures.files(in: directory.url).isEmpty, Testing.Comment(rawValue: note))
            return error
        }
        return nil
    }

    @Test func wrongKeyMissingKeyAndKeyForAPlainFile() throws {
        var wrong = try ImportFixtures.blogKey()
        wrong[40] ^= 1
        #expect(try failedImport(ImportFixtures.url("blog-encrypted.realm"), key: wrong) == .realmFile(.wrongEncryptionKey))
        var wrongAES = try ImportFixtures.blogKey()
        wrongAES[3] ^= 1
        #expect(try failedImport(ImportFixtures.url("blog-encrypted.realm"), key: wrongAES) == .realmFile(.wrongEncryptionKey))
        #expect(try failedImport(ImportFixtures.url("blog-encrypted.realm")) == .realmFile(.encryptionKeyRequired))
        #expect(try failedImport(ImportFixtures.url("blog.realm"), key: try ImportFixtures.blogKey()) == .realmFile(.fileNotEncrypted))
        #expect(try failedImport(ImportFixtures.url("blog-encrypted.realm"), key: Data(count: 32)) == .realmFile(.invalidKeyLength(32)))
        // Messages never carry key bytes.
        let message = RealmImportError.realmFile(.wrongEncryptionKey).description
        #expect(!message.contains("0001020304"))
    }

    @Test func foreignFiles() throws {
        let directory = try TemporaryDirectory("realm-import-foreign")
        let text = directory.file("notes.realm")
        try Data("just some text, not a Realm file at all\n".utf8).write(to: text)
        #expect(try failedImport(text) == .realmFile(.notARealmFile))
        let empty = directory.file("empty.realm")
        try Data().write(to: empty)
        #expect(try failedImport(empty) != nil)
        // A VaultKit vault is not a Realm file either.
        let vaultURL = directory.file("a.vault")
        _ = try Vault(configuration: ImportFixtures.configuration(vaultURL))
        #expect(try failedImport(vaultURL) != nil)
        let missing = directory.file("missing.realm")
        guard case .realmFile(.io) = try #require(try failedImport(missing)) else {
            Issue.record("a missing file is an I/O error")
            return
        }
    }

    /// Cut at every 4 KiB boundary: always a typed error, never a partial vault.
    @Test func truncatedAtEveryPageBoundary() throws {
        let bytes = try Data(contentsOf: ImportFixtures.url("alltypes.realm"))
        let directory = try TemporaryDirectory("realm-import-cut")
        let cut = directory.file("cut.realm")
        for length in stride(from: 0, to: bytes.count, by: 4096) {
            try bytes.prefix(length).write(to: cut)
            let error = try failedImport(cut, "cut at \(length)")
            #expect(error != nil, "alltypes.realm cut at \(length) was imported")
        }
    }

    /// Flipped bytes: an encrypted file's damage is always found (every written page is
    /// authenticated before anything is read); a plain file's either fails typed or imports.
    @Test func flippedBytes() throws {
        let directory = try TemporaryDirectory("realm-import-flip")
        let flipped = directory.file("flipped.realm")
        var generator = SplitMix64(seed: 77)
        let encrypted = [UInt8](try Data(contentsOf: ImportFixtures.url("blog-encrypted.realm")))
        let key = try ImportFixtures.blogKey()
        for _ in 0..<25 {
            var bytes = encrypted
            let position = Int(generator.next() % UInt64(bytes.count))
            bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            try Data(bytes).write(to: flipped)
            if EncryptedRealmLayout.isInWrittenDataPage(position, of: encrypted) {
                #expect(try failedImport(flipped, key: key, "byte \(position)") != nil, "byte \(position) flipped, imported anyway")
            }
        }
        let plain = [UInt8](try Data(contentsOf: ImportFixtures.url("alltypes.realm")))
        for _ in 0..<25 {
            var bytes = plain
            let position = Int(generator.next() % UInt64(bytes.count))
            bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            try Data(bytes).write(to: flipped)
            _ = try failedImport(flipped, "byte \(position)")
        }
    }

    @Test func anExistingDestinationIsNeverReplaced() throws {
        let directory = try TemporaryDirectory("realm-import-exists")
        let destination = directory.file("app.vault")
        try Data("keep me".utf8).write(to: destination)
        #expect {
            try Vault.importRealm(at: ImportFixtures.url("blog.realm"), into: ImportFixtures.configuration(destination))
        } throws: { error in
            (error as? RealmImportError) == .destinationExists(path: destination.path)
        }
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        #expect(try ImportFixtures.files(in: directory.url) == ["app.vault"])
    }

    @Test func inMemoryDestinationIsRefused() throws {
        let configuration = Vault.Configuration(inMemoryIdentifier: "import-target")
        #expect(throws: RealmImportError.self) {
            try Vault.importRealm(at: ImportFixtures.url("blog.realm"), into: configuration)
        }
    }
}
