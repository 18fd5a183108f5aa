import CSQLite
import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("Opening: wrong keys and files that are not vaults")
struct OpenErrorTests {
    @Test("the wrong key is refused before any page is read")
    func wrongKey() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("k.vault")
        try makeVault(url, key: try MasterKey.generate(), rows: 10).close()
        let before = try Data(contentsOf: url)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: try MasterKey.generate()) }
        guard case .wrongKey(let path)? = error else { Issue.record("expected wrongKey, got \(String(describing: error))"); return }
        #expect(path.hasSuffix("k.vault"))
        #expect(try Data(contentsOf: url) == before, "a refused open must not change the file")
    }

    @Test("a missing key is a clear error, for new and existing vaults")
    func missingKey() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: VaultError.self) {
            _ = try VaultDatabase(configuration: .init(fileURL: directory.file("none.vault"), masterKey: nil))
        }
        guard case .missingKey? = error else { Issue.record("expected missingKey, got \(String(describing: error))"); return }
        #expect(error?.description.contains("MasterKey.generate()") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.file("none.vault").path))
    }

    @Test("keys of any length but 64 bytes are refused", arguments: [0, 1, 32, 63, 65, 128])
    func keyLength(length: Int) throws {
        let error = #expect(throws: VaultError.self) { _ = try MasterKey(bytes: Data(repeating: 1, count: length)) }
        guard case .invalidKey(let message)? = error else { Issue.record("expected invalidKey"); return }
        #expect(message.contains("\(length)"))
        var bytes = [UInt8](repeating: 9, count: length)
        #expect(throws: VaultError.self) { _ = try MasterKey(wiping: &bytes) }
        #expect(bytes.allSatisfy { $0 == 0 }, "the caller's copy is wiped even when refused")
    }

    @Test("a key never prints its bytes")
    func keyRedaction() throws {
        let key = try MasterKey(bytes: Data(repeating: 0xAB, count: 64))
        #expect(!"\(key)".lowercased().contains("ab"))
        #expect(!String(reflecting: key).lowercased().contains("abab"))
        #expect(key.isSameKey(as: try MasterKey(bytes: Data(repeating: 0xAB, count: 64))))
        #expect(!key.isSameKey(as: try MasterKey.generate()))
        var original = [UInt8](repeating: 0x5C, count: 64)
        let moved = try MasterKey(wiping: &original)
        #expect(original.allSatisfy { $0 == 0 })
        #expect(moved.withUnsafeBytes { $0.allSatisfy { $0 == 0x5C } })
    }

    /// Files that are not vaults, each with the reason the error must give.
    static let notVaults: [(name: String, bytes: [UInt8], reason: String)] = [
        ("empty", [], "empty"),
        ("random", (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }, "does not start with a VaultKit header"),
        ("tiny", Array("hello".utf8), "does not start with a VaultKit header"),
    ]

    @Test("files that are not vaults are refused with the reason", arguments: 0..<3)
    func notAVault(index: Int) throws {
        let (name, bytes, reason) = Self.notVaults[index]
        let directory = try TemporaryDirectory()
        let url = directory.file(name)
        try Data(bytes).write(to: url)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: try MasterKey.generate()) }
        guard case .notAVault(_, let message)? = error else { Issue.record("expected notAVault for \(name), got \(String(describing: error))"); return }
        #expect(message.contains(reason), "\(message)")
        #expect(try Data(contentsOf: url) == Data(bytes), "the file must be left untouched")
    }

    @Test("a plain SQLite database is refused as unencrypted")
    func plainSQLite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.db")
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TABLE x(a); INSERT INTO x VALUES (1)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: try MasterKey.generate()) }
        guard case .notAVault(_, let message)? = error else { Issue.record("expected notAVault, got \(String(describing: error))"); return }
        #expect(message.contains("plain, unencrypted SQLite database"))
    }

    @Test("a cut-short header is refused", arguments: [100, 120, 300, 4095])
    func truncatedHeader(length: Int) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("cut.vault")
        try makeVault(url, key: try MasterKey.generate(), rows: 5).close()
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(length).write(to: url)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: try MasterKey.generate()) }
        guard case .notAVault? = error else { Issue.record("expected notAVault, got \(String(describing: error))"); return }
    }

    @Test("a newer format version is refused as unsupported")
    func newerVersion() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("v2.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 5).close()
        var bytes = try Data(contentsOf: url)
        bytes[108] = 2
        try bytes.write(to: url)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: key) }
        guard case .unsupportedFormat(_, let detail)? = error else { Issue.record("expected unsupportedFormat, got \(String(describing: error))"); return }
        #expect(detail.contains("version 2"))
    }

    @Test("damaged key slots are an integrity failure of the header; a damaged inactive slot is harmless")
    func damagedSlots() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("slot.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 5).close()
        var bytes = try Data(contentsOf: url)
        bytes[384 + 40] ^= 0xFF           // slot B is empty: damage there changes nothing
        try bytes.write(to: url)
        #expect(try readRows(try openVault(url, key: key)).count == 5)
        bytes[256 + 40] ^= 0x01           // slot A holds the key
        try bytes.write(to: url)
        let error = #expect(throws: VaultError.self) { _ = try openVault(url, key: key) }
        guard case .integrity(let failure)? = error else { Issue.record("expected integrity, got \(String(describing: error))"); return }
        #expect(failure.location == .header)
    }

    @Test("read-only and in-memory misconfigurations are explained")
    func configurationErrors() throws {
        let directory = try TemporaryDirectory()
        var config = VaultDatabase.Configuration(fileURL: directory.file("absent.vault"), masterKey: try MasterKey.generate())
        config.readOnly = true
        let error = #expect(throws: VaultError.self) { _ = try VaultDatabase(configuration: config) }
        guard case .fileNotFound? = error else { Issue.record("expected fileNotFound, got \(String(describing: error))"); return }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent.vault").path))

        var memory = VaultDatabase.Configuration(inMemoryIdentifier: "")
        #expect(throws: VaultError.self) { _ = try VaultDatabase(configuration: memory) }
        memory = VaultDatabase.Configuration(inMemoryIdentifier: "ro")
        memory.readOnly = true
        #expect(throws: VaultError.self) { _ = try VaultDatabase(configuration: memory) }

        let missingDirectory = directory.file("no/such/dir/x.vault")
        let ioError = #expect(throws: VaultError.self) { _ = try openVault(missingDirectory, key: try MasterKey.generate()) }
        guard case .io(_, let detail)? = ioError else { Issue.record("expected io, got \(String(describing: ioError))"); return }
        #expect(detail.contains("does not exist"))
    }

    @Test("ATTACH and raw VACUUM INTO cannot create or open vault files without a key")
    func attachWithoutKey() throws {
        let directory = try TemporaryDirectory()
        let vault = try makeVault(directory.file("a.vault"), key: try MasterKey.generate(), rows: 3)
        let target = directory.file("stolen.db").path
        let error = #expect(throws: VaultError.self) {
            try vault.writeWithoutTransaction { db in try db.execute("VACUUM INTO ?", arguments: [.text(target)]) }
        }
        guard case .missingKey? = error else { Issue.record("expected missingKey, got \(String(describing: error))"); return }
        try makeVault(directory.file("other.vault"), key: try MasterKey.generate(), rows: 1).close()
        let attachError = #expect(throws: VaultError.self) {
            try vault.writeWithoutTransaction { db in try db.execute("ATTACH ? AS other", arguments: [.text(directory.file("other.vault").path)]) }
        }
        guard case .missingKey? = attachError else { Issue.record("expected missingKey, got \(String(describing: attachError))"); return }
        if let data = FileManager.default.contents(atPath: target) {
            #expect(!data.contains(plaintextMarker))
        }
    }
}

@Suite("Vault paths that are not files")
struct VaultPathTests {
    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "succeeded"
        } catch {
            return "\(error)"
        }
    }

    @Test("a directory or a FIFO as the vault path: a clear error naming the path, for read-write and read-only opens, info and verify (never a hang)")
    func notRegularFiles() throws {
        let directory = try TemporaryDirectory("vault-paths")
        let folder = directory.file("folder.vault")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let pipe = directory.file("pipe.vault")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let key = try MasterKey.generate()
        for (url, expected) in [(folder, "is a directory"), (pipe, "is not a regular file")] {
            #expect(message { _ = try openVault(url, key: key) }.contains(expected))
            #expect(message { _ = try openVault(url, key: key) { $0.readOnly = true } }.contains(expected))
            #expect(message { _ = try VaultMaintenance.inspect(vaultAt: url) }.contains(expected))
            #expect(message { _ = try VaultMaintenance.authenticate(vaultAt: url, key: key) }.contains(expected))
            #expect(message { _ = try openVault(url, key: key) }.contains(url.lastPathComponent), "the message names the path")
        }
    }

    @Test("rotating the key of a file that is not a vault fails without leaving a lock file behind")
    func noLockLeftBehind() throws {
        let directory = try TemporaryDirectory("vault-paths-lock")
        let url = directory.file("notes.txt")
        try Data(repeating: 0x41, count: 10_000).write(to: url)
        let key = try MasterKey.generate()
        #expect(throws: VaultError.self) { try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: key, to: try MasterKey.generate()) }
        #expect(throws: VaultError.self) { try VaultMaintenance.rekey(vaultAt: url, from: key, to: try MasterKey.generate()) }
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"))
    }

    @Test("verify leaves a vault without -wal and -shm as it found it; a dry run's in-use check predicts the real run")
    func verifyLeavesNothing() throws {
        let directory = try TemporaryDirectory("vault-paths-verify")
        let url = directory.file("v.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 20).close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: key)
        #expect(report.isIntact)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal") && !FileManager.default.fileExists(atPath: url.path + "-shm"))

        try VaultMaintenance.ensureNotInUse(vaultAt: url)
        // Another process holding the vault open: the helper keeps committing until killed.
        let process = Process()
        process.executableURL = try helperExecutable()
        process.arguments = ["durability-writer", url.path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data((key.withUnsafeBytes { Data($0) }.map { String(format: "%02x", $0) }.joined() + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        _ = stdout.fileHandleForReading.availableData   // its first commit: it has the vault open
        var inUse = false
        do {
            try VaultMaintenance.ensureNotInUse(vaultAt: url)
        } catch {
            if case .inUse = error { inUse = true } else { Issue.record("\(error)") }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(inUse, "a vault open in another process is reported in use, as the real run would find it")
    }
}
