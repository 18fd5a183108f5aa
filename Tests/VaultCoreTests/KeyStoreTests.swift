import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

@Suite("FileKeyStore")
struct KeyStoreTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("keys") }

    @Test("keys round-trip, list and delete; files are 0600 in a 0700 directory")
    func roundTrip() throws {
        let store = try FileKeyStore(directory: directory.file("store"))
        #expect(fileMode(directory.file("store").path) == 0o700)
        let key = try MasterKey.generate()
        try store.storeKey(key, identifier: "main")
        try store.storeKey(try MasterKey.generate(), identifier: "backup.2026-11")
        #expect(fileMode(try store.fileURL(for: "main").path) == 0o600)
        #expect(try store.loadKey(identifier: "main").isSameKey(as: key))
        #expect(try store.keyIdentifiers() == ["backup.2026-11", "main"])
        #expect(throws: KeyStoreError.keyExists(identifier: "main", path: try store.fileURL(for: "main").path)) {
            try store.storeKey(try MasterKey.generate(), identifier: "main")
        }
        #expect(try store.loadKey(identifier: "main").isSameKey(as: key), "an existing key is never replaced")
        try store.deleteKey(identifier: "main")
        #expect(throws: KeyStoreError.keyNotFound(identifier: "main", path: try store.fileURL(for: "main").path)) {
            _ = try store.loadKey(identifier: "main")
        }
        #expect(try store.keyIdentifiers() == ["backup.2026-11"])
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("store").path) == ["backup.2026-11.vaultkey"])
    }

    @Test("passphrase-sealed keys need the right passphrase; the file holds no key bytes")
    func passphrase() throws {
        let store = try FileKeyStore(directory: directory.url, passphrase: try Passphrase("open sesame"), passphraseCost: .interactive)
        let key = try MasterKey(bytes: Data(repeating: 0xA5, count: 64))
        try store.storeKey(key, identifier: "sealed")
        let bytes = try Data(contentsOf: try store.fileURL(for: "sealed"))
        #expect(bytes.range(of: Data(repeating: 0xA5, count: 8)) == nil)
        #expect(try store.loadKey(identifier: "sealed").isSameKey(as: key))
        let wrong = try FileKeyStore(directory: directory.url, passphrase: try Passphrase("open barley"))
        #expect(throws: KeyStoreError.wrongPassphrase(path: try store.fileURL(for: "sealed").path)) { _ = try wrong.loadKey(identifier: "sealed") }
        let none = try FileKeyStore(directory: directory.url)
        #expect(throws: KeyStoreError.passphraseRequired(path: try store.fileURL(for: "sealed").path)) { _ = try none.loadKey(identifier: "sealed") }
    }

    @Test("identifiers that cannot name a file are refused", arguments: ["", ".hidden", "a/b", "../up", "naïve", String(repeating: "x", count: 129)])
    func invalidIdentifiers(identifier: String) throws {
        let store = try FileKeyStore(directory: directory.url)
        #expect(throws: KeyStoreError.self) { try store.storeKey(try MasterKey.generate(), identifier: identifier) }
    }

    @Test("a vault opens with a key from the keystore, and a missing key is a keystore error")
    func configurationWithKeyStore() throws {
        let store = try FileKeyStore(directory: directory.file("keys"))
        try store.storeKey(try MasterKey.generate(), identifier: "app")
        let url = directory.file("k.vault")
        do {
            let vault = try VaultDatabase(configuration: .init(fileURL: url, keyStore: store, keyIdentifier: "app"))
            try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)") }
        }
        let reopened = try VaultDatabase(configuration: .init(fileURL: url, keyStore: store, keyIdentifier: "app"))
        #expect(try readRows(reopened).isEmpty)
        let error = #expect(throws: VaultError.self) {
            _ = try VaultDatabase(configuration: .init(fileURL: url, keyStore: store, keyIdentifier: "absent"))
        }
        guard case .keyStore(.keyNotFound(let identifier, _))? = error else { Issue.record("expected keyNotFound, got \(String(describing: error))"); return }
        #expect(identifier == "absent")
    }
}

@Suite("KeyFixtures: every file gives the outcome its README promises")
struct KeyFixtureTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("fixtures") }

    /// Copies a fixture with mode 0600 (git keeps no modes).
    func fixture(_ name: String, mode: mode_t = 0o600) throws -> URL {
        let target = directory.file(name)
        if !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("KeyFixtures/\(name)"), to: target)
        }
        chmod(target.path, mode)
        return target
    }

    func load(_ name: String, passphrase: String? = nil) throws -> MasterKey {
        let phrase = try passphrase.map { try Passphrase(contentsOf: try fixture($0)) }
        return try FileKeyStore.readKeyFile(at: try fixture(name), passphrase: phrase).key
    }

    func expectError(_ name: String, passphrase: String? = nil, _ expected: (KeyStoreError, String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = try fixture(name).path
        do {
            _ = try load(name, passphrase: passphrase)
            Issue.record("\(name) loaded but must fail", sourceLocation: sourceLocation)
        } catch let error as KeyStoreError {
            #expect(expected(error, path), "\(name): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("the valid fixtures load")
    func valid() throws {
        let plain = try load("valid-plain.vaultkey")
        let bytes = try Data(contentsOf: try fixture("valid-plain.vaultkey"))
        #expect(plain.withUnsafeBytes { Data($0) } == bytes[33..<97])
        let sealed = try load("valid-sealed.vaultkey", passphrase: "valid-sealed.passphrase")
        #expect(!sealed.isSameKey(as: plain))
        let raw = try Data(contentsOf: repositoryRoot.appendingPathComponent("KeyFixtures/format-v1.key"))
        #expect(raw.count == 64)
    }

    @Test("the invalid fixtures fail with their documented errors")
    func invalid() throws {
        try expectError("valid-sealed.vaultkey", passphrase: "wrong.passphrase") { $0 == .wrongPassphrase(path: $1) }
        try expectError("valid-sealed.vaultkey") { $0 == .passphraseRequired(path: $1) }
        for length in [32, 63, 65] {
            try expectError("key-\(length)-bytes.vaultkey") { $0 == .wrongKeyLength(path: $1, length: length) }
        }
        try expectError("truncated.vaultkey") { $0 == .corrupt(path: $1, reason: "the file is cut short (80 of 129 bytes)") }
        try expectError("flipped-byte.vaultkey") { $0 == .corrupt(path: $1, reason: "its checksum does not match (a byte was changed)") }
        try expectError("unknown-version.vaultkey") { $0 == .unsupportedVersion(path: $1, version: 9) }
        try expectError("empty.vaultkey") { $0 == .corrupt(path: $1, reason: "the file is empty") }
        try expectError("not-a-key-file.vaultkey") { error, path in
            if case .corrupt(path, let reason) = error { return reason.contains("not a VaultKit key file") }
            return false
        }
    }

    @Test("a key file for another identifier is refused by the keystore")
    func otherIdentifier() throws {
        let path = try fixture("other-identifier.vaultkey").path
        let store = try FileKeyStore(directory: directory.url)
        #expect(throws: KeyStoreError.identifierMismatch(path: path, expected: "other-identifier", found: "valid-plain")) {
            _ = try store.loadKey(identifier: "other-identifier")
        }
    }

    @Test("key files readable or writable by others are refused, naming the fix", arguments: [0o644, 0o640, 0o604, 0o660, 0o602] as [mode_t])
    func permissions(mode: mode_t) throws {
        let url = try fixture("valid-plain.vaultkey", mode: mode)
        let error = #expect(throws: KeyStoreError.self) { _ = try FileKeyStore.readKeyFile(at: url, passphrase: nil) }
        #expect(error == .insecurePermissions(path: url.path, mode: UInt16(mode)))
        #expect(error?.description.hasSuffix("Run: chmod 600 '\(url.path)'") == true)
        #expect(error?.description.contains(String(format: "%04o", mode)) == true)
    }
}

@Suite("Key files that are not files")
struct KeyFileTypeTests {
    @Test("a directory, a FIFO or a huge (sparse) file given as a key file is refused by type or size, at once and without reading it")
    func refusedByTypeAndSize() throws {
        let directory = try TemporaryDirectory("keyfile-types")
        let folder = directory.file("folder.vaultkey")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(message(folder).contains("is a directory"))

        let pipe = directory.file("pipe.vaultkey")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        #expect(message(pipe).contains("is not a regular file"))

        let huge = directory.file("huge.vaultkey")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil, attributes: [.posixPermissions: 0o600]))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 4 << 30)   // 4 GiB, sparse
        try handle.close()
        #expect(message(huge).contains("bytes long"), "refused by its size, before any read")
    }

    private func message(_ url: URL) -> String {
        do {
            _ = try FileKeyStore.readKeyFile(at: url, passphrase: nil)
            return "read"
        } catch {
            return "\(error)"
        }
    }
}

@Suite("Key files written where they cannot be")
struct KeyFileDestinationTests {
    @Test("a key file in a directory that does not exist: the error names that directory, not a temporary file")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory("keyfile-destination")
        let target = directory.file("missing/sub/k.vaultkey")
        do {
            try FileKeyStore.writeKeyFile(try MasterKey.generate(), identifier: "k", to: target, passphrase: nil)
            Issue.record("written into a missing directory")
        } catch {
            #expect("\(error)".contains("missing/sub") && "\(error)".contains("does not exist") && !"\(error)".contains(".tmp-"), "\(error)")
        }
    }
}
