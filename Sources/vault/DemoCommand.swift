import ArgumentParser
import Foundation
import VaultCore

/// `vault demo`: the main job in one run — an encrypted vault from a generated
/// key, records written and read, the files scanned for plaintext, a wrong key
/// and a flipped bit refused.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create an encrypted vault, write and read records, and show what an attacker with the files sees."
    )

    @Option(name: .long, help: "Directory for the demo vault (created; emptied of a previous demo vault first).")
    var directory: String = "vault-demo"

    @Option(name: .long, help: "Number of records to write.")
    var records: Int = 1000

    func run() throws {
        guard records > 0 else { throw ValidationError("--records must be at least 1") }
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("demo.vault")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        let secret = "the launch code is 0000-\(UUID().uuidString.prefix(8))"

        print("VaultKit demo — \(url.path)")
        let key = try MasterKey.generate()
        print("  1. generated a 64-byte master key in libsodium guarded memory (it is never printed)")

        let vault = try VaultDatabase(configuration: .init(fileURL: url, masterKey: key))
        try vault.write { db in
            try db.execute("CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)")
            let insert = try db.cachedStatement("INSERT INTO note(title, body) VALUES (?, ?)")
            for i in 1...records {
                try insert.execute([.text("note \(i)"), .text(i == 42 ? secret : "body of note \(i): \(String(repeating: "lorem ipsum ", count: 4))")])
            }
        }
        print("  2. created the vault and wrote \(records) records in one transaction (XChaCha20-Poly1305, format v1)")

        let count = try vault.read { db in try db.fetchOne("SELECT count(*) FROM note")?[0].int64 ?? 0 }
        let note = try vault.read { db in try db.fetchOne("SELECT title, body FROM note WHERE id = 42") }
        print("  3. read back \(count) records; record 42 says: \"\(note?[1].string ?? "?")\"")

        var scanned = 0
        var found: [String] = []
        for suffix in ["", "-wal", "-shm"] {
            guard let bytes = FileManager.default.contents(atPath: url.path + suffix) else { continue }
            scanned += bytes.count
            if bytes.range(of: Data(secret.utf8)) != nil || bytes.range(of: Data("body of note".utf8)) != nil {
                found.append(url.lastPathComponent + suffix)
            }
        }
        guard found.isEmpty else { throw ValidationError("plaintext found in \(found.joined(separator: ", ")) — this is a bug") }
        print("  4. searched the database, its WAL and its -shm (\(scanned) bytes) for the record text: not found")

        vault.close()
        do {
            _ = try VaultDatabase(configuration: .init(fileURL: url, masterKey: try MasterKey.generate()))
            throw ValidationError("a wrong key opened the vault — this is a bug")
        } catch let error as VaultError {
            print("  5. opening with another key is refused:\n       \(error)")
        }

        var bytes = try Data(contentsOf: url)
        let position = 4096 * 2 + 1000   // a byte inside page 2
        bytes[position] ^= 0x01
        let tampered = folder.appendingPathComponent("tampered.vault")
        try? FileManager.default.removeItem(at: tampered)
        try bytes.write(to: tampered)
        do {
            let copy = try VaultDatabase(configuration: .init(fileURL: tampered, masterKey: key))
            _ = try copy.read { db in try db.fetchAll("SELECT * FROM note") }
            try copy.verify()
            throw ValidationError("a flipped bit went unnoticed — this is a bug")
        } catch let error as VaultError {
            print("  6. a copy with one flipped bit is refused:\n       \(error)")
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: tampered.path + suffix) }

        let reopened = try VaultDatabase(configuration: .init(fileURL: url, masterKey: key))
        let again = try reopened.read { db in try db.fetchOne("SELECT count(*) FROM note")?[0].int64 ?? 0 }
        print("  7. reopened with the right key: \(again) records intact")
    }
}
