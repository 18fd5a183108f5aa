import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

@Suite("Key rotation and rekey")
struct KeyRotationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("rotation") }

    func expectWrongKey(_ url: URL, _ key: MasterKey, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: VaultError.self, sourceLocation: sourceLocation) { _ = try openVault(url, key: key) }
        guard case .wrongKey? = error else { Issue.record("expected wrongKey, got \(String(describing: error))", sourceLocation: sourceLocation); return }
    }

    @Test("rotating the master key: only the new key opens the vault, data intact, slots flip")
    func rotateMasterKey() throws {
        let url = directory.file("r.vault")
        let first = try MasterKey.generate(), second = try MasterKey.generate(), third = try MasterKey.generate()
        try makeVault(url, key: first, rows: 300).close()
        let pagesBefore = try Data(contentsOf: url)[4096...]

        try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: first, to: second)
        expectWrongKey(url, first)
        #expect(try readRows(try openVault(url, key: second)).count == 300)
        #expect(try Data(contentsOf: url)[4096...] == pagesBefore, "rotation rewrites no page")
        #expect(try VaultMaintenance.inspect(vaultAt: url).slots == [.empty, .valid(generation: 2)])

        try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: second, to: third)
        #expect(try VaultMaintenance.inspect(vaultAt: url).slots == [.valid(generation: 3), .empty])
        expectWrongKey(url, second)
        #expect(try readRows(try openVault(url, key: third)).count == 300)
        // The wrong current key changes nothing.
        #expect(throws: VaultError.self) { try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: first, to: second) }
        #expect(try readRows(try openVault(url, key: third)).count == 300)
    }

    @Test("a crash between writing the new slot and erasing the old one leaves only the new key working")
    func crashBetweenSlots() throws {
        let url = directory.file("c.vault")
        let old = try MasterKey.generate(), new = try MasterKey.generate()
        try makeVault(url, key: old, rows: 10).close()
        do {
            let db = try Database.open(path: VaultVFS.fullPathname(url.path), vfs: VaultVFS.name, readOnly: false,
                                       context: VaultRegistry.OpenContext(masterKey: old, mayCreate: false))
            try db.transaction(.immediate) { db in
                try VaultMaintenance.installMasterKey(on: db, from: old, to: new, stopBeforeErasingOldSlot: true)
            }
        }
        #expect(try VaultMaintenance.inspect(vaultAt: url).slots == [.valid(generation: 1), .valid(generation: 2)])
        expectWrongKey(url, old)
        #expect(try readRows(try openVault(url, key: new)).count == 10)
    }

    @Test("an open vault rotates its own key and keeps opening readers")
    func rotateOpenVault() throws {
        let url = directory.file("o.vault")
        let old = try MasterKey.generate(), new = try MasterKey.generate()
        let vault = try makeVault(url, key: old, rows: 20) { $0.maximumReaderCount = 8 }
        #expect(vault.configuration.masterKey?.isSameKey(as: old) == true)
        try vault.rotateMasterKey(to: new)
        #expect(vault.configuration.masterKey?.isSameKey(as: new) == true, "the configuration holds no stale key after rotation")
        // Readers opened after the rotation use the new key.
        let counts = try (0..<6).map { _ in try readRows(vault).count }
        #expect(counts == Array(repeating: 20, count: 6))
        vault.close()
        expectWrongKey(url, old)
        #expect(try readRows(try openVault(url, key: new)).count == 20)
    }

    @Test("rekey: every page re-encrypted under a new data key; the old key opens nothing")
    func rekey() throws {
        let url = directory.file("k.vault")
        let old = try MasterKey.generate(), new = try MasterKey.generate()
        try makeVault(url, key: old, rows: 400).close()
        let before = try Data(contentsOf: url)
        try VaultMaintenance.rekey(vaultAt: url, from: old, to: new)
        let after = try Data(contentsOf: url)
        #expect(before[120..<152] != after[120..<152], "a new file salt")
        #expect(before[8192..<12288] != after[8192..<12288], "pages were re-encrypted")
        expectWrongKey(url, old)
        let rows = try readRows(try openVault(url, key: new))
        #expect(rows.count == 400)
        #expect(rows.allSatisfy { $0.1.hasPrefix(plaintextMarker) })
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: new)
        #expect(report.isIntact)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("rekey") }
        #expect(leftovers.isEmpty, "no temporary copy is left behind: \(leftovers)")
        // Rekeying with the same master key changes the data key only.
        try VaultMaintenance.rekey(vaultAt: url, from: new, to: nil)
        #expect(try readRows(try openVault(url, key: new)).count == 400)
    }

    @Test("rekey and rotation refuse while the vault is open, in this process or another")
    func refuseWhileOpen() throws {
        let url = directory.file("busy.vault")
        let key = try MasterKey.generate()
        let vault = try makeVault(url, key: key, rows: 5)
        for operation in ["rekey", "rotate"] {
            let error = #expect(throws: VaultError.self) {
                if operation == "rekey" { try VaultMaintenance.rekey(vaultAt: url, from: key, to: try MasterKey.generate()) }
                else { try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: key, to: try MasterKey.generate()) }
            }
            guard case .inUse? = error else { Issue.record("\(operation): expected inUse, got \(String(describing: error))"); continue }
        }
        #expect(try readRows(vault).count == 5)
        vault.close()
        try VaultMaintenance.rekey(vaultAt: url, from: key, to: nil)
    }

    @Test("verify authenticates every WAL frame too, and names a failing one")
    func verifyWAL() throws {
        let fixture = try TamperFixture.make(withWAL: true)
        let url = directory.file("w.vault")
        try fixture.database.write(to: url)
        guard var wal = fixture.wal else { Issue.record("no WAL"); return }
        try wal.write(to: URL(fileURLWithPath: url.path + "-wal"))
        let intact = try VaultMaintenance.authenticate(vaultAt: url, key: fixture.key)
        #expect(intact.isIntact)
        #expect(intact.walFrames == Int((SealedFileLayout.wal.logicalSize(physicalSize: Int64(wal.count)) - 32) / 4120))
        wal[Int(SealedFileLayout.wal.unit(at: 32 + 4120 + 24).physicalStart) + 100] ^= 1      // frame 2's page
        try wal.write(to: URL(fileURLWithPath: url.path + "-wal"))
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: fixture.key)
        #expect(report.failures.map(\.location) == [.walFrame(2)])
        #expect(report.failures.first?.path.hasSuffix("w.vault-wal") == true)
    }

    @Test("writeCopy with Realm's encryptionKey label")
    func writeCopyRealmSpelling() throws {
        let key = try MasterKey.generate()
        let vault = try makeVault(directory.file("s.vault"), key: key, rows: 12)
        let newKey = Data((0..<64).map { UInt8($0) })
        try vault.writeCopy(toFile: directory.file("copy.vault"), encryptionKey: newKey)
        #expect(try readRows(try openVault(directory.file("copy.vault"), key: try MasterKey(bytes: newKey))).count == 12)
        #expect(throws: VaultError.invalidKey("a master key must be exactly 64 bytes; this one has 16")) {
            try vault.writeCopy(toFile: directory.file("bad.vault"), encryptionKey: Data(count: 16))
        }
    }

    @Test("verify reports every failing page by number")
    func verifyReportsPages() throws {
        let url = directory.file("v.vault")
        let key = try MasterKey.generate()
        try makeVault(url, key: key, rows: 400).close()
        var bytes = try Data(contentsOf: url)
        bytes[4096 * 3 + 10] ^= 1      // page 3
        bytes[4096 * 6 + 4090] ^= 1    // page 6, in the tag
        try bytes.write(to: url)
        let report = try VaultMaintenance.authenticate(vaultAt: url, key: key)
        #expect(!report.isIntact)
        #expect(report.failures.map(\.location) == [.databasePage(3), .databasePage(6)])
    }
}

@Suite("Key rotation survives SIGKILL at any instant", .serialized)
struct KeyRotationDurabilityTests {
    @Test("kill rotate-key and rekey loops at random points; exactly one key opens a whole vault", arguments: ["rotate-loop", "rekey-loop"])
    func killDuringRotation(command: String) throws {
        let directory = try TemporaryDirectory("rotation-kill")
        let url = directory.file("d.vault")
        let keyA = try MasterKey.generate(), keyB = try MasterKey.generate()
        for (name, key) in [("a", keyA), ("b", keyB)] {
            try FileKeyStore.writeKeyFile(key, identifier: name, to: directory.file("\(name).vaultkey"), passphrase: nil)
        }
        try makeVault(url, key: keyA, rows: 200).close()
        let expected = try readRows(try openVault(url, key: keyA))
        let rounds = command == "rotate-loop" ? 40 : 25
        for round in 0..<rounds {
            let loop = try RunningHelper([command, url.path, directory.file("a.vaultkey").path, directory.file("b.vaultkey").path])
            // Blind kills land often inside the first rotation.
            let window = command == "rotate-loop" ? 60_000 : 150_000
            let (progressed, termination) = loop.kill(inRound: round, afterLineStartingWith: "now ",
                                                      delay: 0..<window, blindDelay: 2_000..<(2_000 + window))
            #expect(progressed, "round \(round): no rotation completed in 60 s")
            #expect(termination == .uncaughtSignal, "round \(round): the loop stopped by itself")

            let opensWithA = (try? readRows(try openVault(url, key: keyA))) != nil
            let opensWithB = (try? readRows(try openVault(url, key: keyB))) != nil
            #expect(opensWithA != opensWithB, "round \(round): exactly one key must open the vault (A: \(opensWithA), B: \(opensWithB))")
            let key = opensWithA ? keyA : keyB
            let rows = try readRows(try openVault(url, key: key))
            #expect(rows.count == expected.count && zip(rows, expected).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "round \(round): data changed")
            #expect(try VaultMaintenance.authenticate(vaultAt: url, key: key).isIntact, "round \(round)")
            // The helper always starts from key A: bring the vault back to A.
            if opensWithB {
                try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: keyB, to: keyA)
            }
        }
    }
}

@Suite("Copies larger than the page cache")
struct LargeCopyTests {
    @Test("rekey and writeCopy of a vault larger than the cache (pages written out of order) keep every row")
    func largeCopies() throws {
        let directory = try TemporaryDirectory("large-copy")
        let url = directory.file("big.vault")
        let key = try MasterKey.generate()
        let blob = Data(repeating: 0x5A, count: 3000)
        do {
            let vault = try openVault(url, key: key) { $0.pageCacheSize = 256 * 1024 }
            try vault.write { db in
                try db.execute("CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB NOT NULL, note TEXT NOT NULL)")
                for i in 1...4000 {
                    try db.execute("INSERT INTO b(id, data, note) VALUES (?, ?, ?)", arguments: [.integer(Int64(i)), .blob(blob), .text("\(plaintextMarker)-\(i)")])
                }
            }
            try vault.writeCopy(toFile: directory.file("copy.vault"))
            vault.close()
        }
        let newKey = try MasterKey.generate()
        try VaultMaintenance.rekey(vaultAt: url, from: key, to: newKey)
        for (path, openKey) in [(url, newKey), (directory.file("copy.vault"), key)] {
            let vault = try openVault(path, key: openKey)
            let count = try vault.read { db in try db.fetchOne("SELECT count(*), sum(length(data)) FROM b") }
            #expect(count?[0] == .integer(4000) && count?[1] == .integer(4000 * 3000), "\(path.lastPathComponent)")
            try vault.verify()
            vault.close()
            #expect(try VaultMaintenance.inspect(vaultAt: path).pageCount > 3000)
            #expect(try VaultMaintenance.authenticate(vaultAt: path, key: openKey).isIntact)
        }
        try expectNoPlaintext(in: directory)
    }
}
