// VaultTestHelper: a child process for the tests that cannot run in-process.
//
//   VaultTestHelper durability-writer <vault> [wal|delete]   key (hex) on stdin
//       Commits transaction after transaction and prints "committed N" after
//       each commit returns, until it is killed. The test SIGKILLs it at a
//       random moment and checks that every reported commit survived.
//   VaultTestHelper read-only-check <vault> [--as-nobody]     key (hex) on stdin
//       Opens the vault read-only (as uid 65534 if asked, so that file modes
//       apply even when the tests run as root), prints the row count, then
//       tries to write and prints how that failed.
//   VaultTestHelper make-fixture <vault>                      key (hex) on stdin
//       Writes the format-v1 fixture vault (see KeyFixtures/README.md).
//   VaultTestHelper rotate-loop|rekey-loop <vault> <key file A> <key file B>
//       Rotates the master key (or rekeys) A→B, prints "now B", B→A, prints
//       "now A", and so on until killed. The vault starts under key A.
//   VaultTestHelper execute <vault> <sql>                      key (hex) on stdin
//       Runs the SQL in one write transaction (another process committing to
//       a vault the test is reading) and prints "committed <monotonic ns>".
//   VaultTestHelper write-item <vault> <id> <name>             key (hex) on stdin
//       Through VaultKit (so the commit writes the change log): sets the name
//       of NItem <id>, adding it if missing; prints "committed <monotonic ns>".
//   VaultTestHelper migrate-contacts <vault>                   key (hex) on stdin
//       Opens the migration tests' vault of "Contact" objects at schema version 1
//       (the test kills it at a random point of the migration); prints "migrated".
//   VaultTestHelper misuse <vault> <case>                      key (hex) on stdin
//       Uses a vault against the threading rules (see Misuse.swift); expected to trap.
//   VaultTestHelper sync-apply <vault> <change sets file>      key (hex) on stdin
//   VaultTestHelper sync-write <vault>                         key (hex) on stdin
//       A synced device applying received change sets, or committing local
//       edits, until killed (see SyncDevice.swift).
//   VaultTestHelper async-writes <vault>                       key (hex) on stdin
//       Four asynchronous writes wait for a held lock without starving the
//       cooperative pool (see AsyncWrites.swift).
//
// The key never appears on a command line, where `ps` would show it.
import Foundation
import VaultCore
import VaultKit
import VaultTestSupport

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("VaultTestHelper: \(message)\n".utf8))
    exit(3)
}

func readKeyFromStandardInput() -> MasterKey {
    guard let line = readLine(strippingNewline: true) else { fail("expected a hex key on stdin") }
    var bytes: [UInt8] = []
    var index = line.startIndex
    while index < line.endIndex {
        let next = line.index(index, offsetBy: 2, limitedBy: line.endIndex) ?? line.endIndex
        guard let byte = UInt8(line[index..<next], radix: 16) else { fail("the key is not hex") }
        bytes.append(byte)
        index = next
    }
    do { return try MasterKey(wiping: &bytes) } catch { fail("\(error)") }
}

/// The payload of row `id` in the durability test: deterministic, of varying
/// size (some rows overflow onto their own pages).
func durabilityPayload(_ id: Int) -> String {
    let length = 16 + (id * 7919) % 3000
    return String(repeating: String(UnicodeScalar(UInt8(65 + id % 26))), count: length)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, arguments.count >= 2 else { fail("usage: see the comment at the top of main.swift") }
let url = URL(fileURLWithPath: arguments[1])

switch command {
case "execute":
    guard arguments.count >= 3 else { fail("usage: execute <vault> <sql>") }
    let key = readKeyFromStandardInput()
    do {
        let vault = try VaultDatabase(configuration: VaultDatabase.Configuration(fileURL: url, masterKey: key))
        try vault.write { db in try db.execute(arguments[2]) }
        // The monotonic clock is shared by the processes of a machine: the parent measures latency from it.
        print("committed \(DispatchTime.now().uptimeNanoseconds)")
    } catch {
        fail("\(error)")
    }
case "misuse":
    guard arguments.count >= 3 else { fail("usage: misuse <vault> <case>") }
    let key = readKeyFromStandardInput()
    runMisuse(arguments[2], configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) },
                                                               objectTypes: [NItem.self, NOwner.self]))
case "sync-apply", "sync-write":
    let key = readKeyFromStandardInput()
    runSyncDevice(mode: arguments[0], configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) },
                                                                          objectTypes: syncTestTypes),
                  changeSetsFile: arguments.count > 2 ? arguments[2] : nil)
case "async-writes":
    let key = readKeyFromStandardInput()
    runAsyncWrites(configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) },
                                                      objectTypes: [NItem.self, NOwner.self]))
case "write-item":
    guard arguments.count >= 4, let id = Int(arguments[2]) else { fail("usage: write-item <vault> <id> <name>") }
    let key = readKeyFromStandardInput()
    do {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) },
                                                                 objectTypes: [NItem.self, NOwner.self]))
        try vault.write {
            if let item = vault.object(ofType: NItem.self, forPrimaryKey: id) {
                item.name = arguments[3]
            } else {
                let item = NItem()
                item.id = id
                item.name = arguments[3]
                vault.add(item)
            }
        }
        print("committed \(DispatchTime.now().uptimeNanoseconds)")
    } catch {
        fail("\(error)")
    }
case "migrate-contacts":
    let key = readKeyFromStandardInput()
    var configuration = Vault.Configuration(fileURL: url, encryptionKey: key.withUnsafeBytes { Data($0) }, objectTypes: [ContactV1.Contact.self])
    configuration.schemaVersion = 1
    configuration.migrationBlock = { migration, _ in
        migration.renameProperty(onType: "Contact", from: "nickname", to: "handle")
        migration.renameProperty(onType: "Contact", from: "phones", to: "numbers")
        migration.enumerateObjects(ofType: "Contact") { old, new in
            new?["fullName"] = "\(old?["firstName"] as? String ?? "") \(old?["lastName"] as? String ?? "")"
        }
    }
    do {
        _ = try Vault(configuration: configuration)
        print("migrated")
    } catch {
        fail("\(error)")
    }
case "durability-writer":
    let key = readKeyFromStandardInput()
    var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: key)
    configuration.walAutocheckpointPages = 40   // checkpoints happen often, so kills land inside them too
    do {
        let vault = try VaultDatabase(configuration: configuration)
        if arguments.count > 2 && arguments[2] == "delete" {
            try vault.writeWithoutTransaction { db in try db.execute("PRAGMA journal_mode = DELETE") }
        }
        try vault.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try db.execute("CREATE TABLE IF NOT EXISTS counter(id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
            try db.execute("INSERT OR IGNORE INTO counter(id, value) VALUES (1, 0)")
        }
        var next = try vault.read { db in try db.fetchOne("SELECT coalesce(max(id), 0) FROM t")?[0].int64 ?? 0 } + 1
        while true {
            let id = next
            try vault.write { db in
                try db.execute("INSERT INTO t(id, body) VALUES (?, ?)", arguments: [.integer(id), .text(durabilityPayload(Int(id)))])
                try db.execute("UPDATE counter SET value = ? WHERE id = 1", arguments: [.integer(id)])
                if id % 5 == 0 {   // rewrite older rows too, so that commits touch many pages
                    try db.execute("UPDATE t SET body = body WHERE id % 17 = ?", arguments: [.integer(id % 17)])
                }
            }
            // Unbuffered: the parent must see the line the moment the commit returned.
            FileHandle.standardOutput.write(Data("committed \(id)\n".utf8))
            next += 1
        }
    } catch {
        fail("\(error)")
    }

case "read-only-check":
    let key = readKeyFromStandardInput()
    if arguments.contains("--as-nobody") {
        guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop privileges") }
    }
    var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: key)
    configuration.readOnly = true
    do {
        let vault = try VaultDatabase(configuration: configuration)
        let count = try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 ?? -1 }
        print("rows \(count)")
        do {
            try vault.read { db in try db.execute("INSERT INTO t(body) VALUES ('x')") }
            print("write succeeded")
        } catch VaultError.readOnly {
            print("write refused: read-only")
        } catch {
            print("write failed: \(error)")
        }
    } catch {
        print("open failed: \(error)")
    }

case "make-fixture":
    let key = readKeyFromStandardInput()
    do {
        let vault = try VaultDatabase(configuration: .init(fileURL: url, masterKey: key))
        try vault.write { db in
            try db.execute("CREATE TABLE fixture(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB)")
            for id in 1...200 {
                try db.execute("INSERT INTO fixture(id, name, score, data) VALUES (?, ?, ?, ?)", arguments: [
                    .integer(Int64(id)), .text("row-\(id)-" + String(repeating: "v", count: id % 50)),
                    .real(Double(id) / 4), .blob(Data((0..<(id % 40)).map { UInt8(($0 * id) & 0xFF) })),
                ])
            }
        }
        try vault.checkpoint()
        vault.close()
    } catch {
        fail("\(error)")
    }

case "rotate-loop", "rekey-loop":
    guard arguments.count >= 4 else { fail("usage: \(command) <vault> <key file A> <key file B>") }
    do {
        let keys = try [arguments[2], arguments[3]].map {
            try FileKeyStore.readKeyFile(at: URL(fileURLWithPath: $0), passphrase: nil).key
        }
        var current = 0
        while true {
            let next = 1 - current
            if command == "rotate-loop" {
                try VaultMaintenance.rotateMasterKey(ofVaultAt: url, from: keys[current], to: keys[next])
            } else {
                try VaultMaintenance.rekey(vaultAt: url, from: keys[current], to: keys[next])
            }
            current = next
            FileHandle.standardOutput.write(Data("now \(current == 0 ? "A" : "B")\n".utf8))
        }
    } catch {
        fail("\(error)")
    }

default:
    fail("unknown command \(command)")
}
