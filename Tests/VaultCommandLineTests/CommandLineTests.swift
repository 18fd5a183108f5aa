import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// One run of the `vault` tool.
struct ToolRun {
    var status: Int32
    var output: String
    var error: String
}

func runVault(_ arguments: [String], input: String? = nil, environment: [String: String]? = nil, in directory: URL) throws -> ToolRun {
    let process = Process()
    process.executableURL = try builtExecutable("vault")
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.currentDirectoryURL = directory
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let error = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolRun(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self), error: String(decoding: error, as: UTF8.self))
}

@Suite("The vault command-line tool")
struct CommandLineTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("cli") }

    func path(_ name: String) -> String { VaultVFS.fullPathname(directory.file(name).path) }

    /// A vault under the key in `keyFile`, with 300 rows.
    func makeVault(keyFile: String) throws -> String {
        let key = try FileKeyStore.readKeyFile(at: directory.file(keyFile), passphrase: nil).key
        try VaultTestSupport.makeVault(directory.file("v.vault"), key: key, rows: 300).close()
        return path("v.vault")
    }

    @Test("keygen writes a 0600 key file and never overwrites one")
    func keygen() throws {
        let run = try runVault(["keygen", "--output", "k.vaultkey", "--id", "k"], in: directory.url)
        #expect(run.status == 0)
        #expect(run.output == "Generated key 'k' in \(path("k.vaultkey")) (not passphrase-protected)\n")
        #expect(run.error.isEmpty)
        #expect(fileMode(path("k.vaultkey")) == 0o600)
        let again = try runVault(["keygen", "--output", "k.vaultkey", "--id", "k"], in: directory.url)
        #expect(again.status == 78)
        #expect(again.error == "vault: error: A key named 'k' exists already at \(path("k.vaultkey")); keys are never overwritten. Delete it first, or choose another identifier.\n")

        let keystore = try runVault(["keygen", "--keystore", "keys", "--id", "main", "--passphrase-stdin", "--cost", "interactive"], input: "s3cret phrase\n", in: directory.url)
        #expect(keystore.status == 0)
        #expect(keystore.output == "Generated key 'main' in \(path("keys/main.vaultkey")) (sealed with a passphrase, Argon2id interactive)\n")
    }

    @Test("info shows the header without a key, as text and JSON")
    func info() throws {
        _ = try runVault(["keygen", "--output", "k.vaultkey"], in: directory.url)
        let vault = try makeVault(keyFile: "k.vaultkey")
        let pages = (try Data(contentsOf: URL(fileURLWithPath: vault)).count - 4096) / 4096
        let run = try runVault(["info", "v.vault"], in: directory.url)
        #expect(run.status == 0)
        #expect(run.output == """
        vault:          \(vault)
        format:         VaultKit v1
        cipher suite:   XChaCha20-Poly1305
        page size:      4096 bytes (40 reserved for nonce and tag)
        pages:          \(pages) (\(4096 + pages * 4096) bytes)
        WAL frames:     0 (0 bytes)
        key slot A:     generation 1
        key slot B:     empty

        """)
        let json = try runVault(["info", "v.vault", "--json"], in: directory.url)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["pageCount"] as? Int == pages)
        #expect(object?["formatVersion"] as? Int == 1)
        #expect((object?["keySlots"] as? [[String: Any]])?.first?["generation"] as? Int == 1)
        let missing = try runVault(["info", "absent.vault"], in: directory.url)
        #expect(missing.status == 66)
        #expect(missing.error.hasPrefix("vault: error: No vault exists at \(path("absent.vault"))"))
    }

    @Test("verify passes an intact vault, names failing pages, and refuses a wrong key")
    func verify() throws {
        _ = try runVault(["keygen", "--output", "k.vaultkey"], in: directory.url)
        _ = try runVault(["keygen", "--output", "other.vaultkey"], in: directory.url)
        let vault = try makeVault(keyFile: "k.vaultkey")
        let pages = (try Data(contentsOf: URL(fileURLWithPath: vault)).count - 4096) / 4096
        let ok = try runVault(["verify", "v.vault", "--key-file", "k.vaultkey"], in: directory.url)
        #expect(ok.status == 0)
        #expect(ok.output == "OK: \(pages) database pages and 0 WAL frames authenticated; SQLite integrity check ok\n")

        let wrong = try runVault(["verify", "v.vault", "--key-file", "other.vaultkey"], in: directory.url)
        #expect(wrong.status == 77)
        #expect(wrong.error == "vault: error: The key does not open the vault at \(vault): it was encrypted with a different master key (or its key slots were altered).\n")

        var bytes = try Data(contentsOf: URL(fileURLWithPath: vault))
        bytes[4096 * 3 + 100] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: vault))
        let tampered = try runVault(["verify", "v.vault", "--key-file", "k.vaultkey"], in: directory.url)
        #expect(tampered.status == 65)
        #expect(tampered.error == "vault: \(vault): page 3: database page failed authentication\n")
        #expect(tampered.output == "FAILED: 1 units failed authentication, 0 integrity-check problems\n")
        let json = try runVault(["verify", "v.vault", "--key-file", "k.vaultkey", "--json"], in: directory.url)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(json.status == 65)
        #expect(object?["ok"] as? Bool == false)
        #expect((object?["failures"] as? [[String: Any]])?.first?["location"] as? String == "page 3")
    }

    @Test("rotate-key and rekey change which key opens the vault")
    func rotation() throws {
        for name in ["k1", "k2", "k3"] { _ = try runVault(["keygen", "--output", "\(name).vaultkey", "--id", name], in: directory.url) }
        _ = try makeVault(keyFile: "k1.vaultkey")
        let dry = try runVault(["rotate-key", "v.vault", "--key-file", "k1.vaultkey", "--new-key-file", "k2.vaultkey", "--dry-run"], in: directory.url)
        #expect(dry.status == 0)
        #expect(dry.output.hasPrefix("Dry run: the current key opens v.vault"))
        #expect(try runVault(["verify", "v.vault", "--key-file", "k1.vaultkey"], in: directory.url).status == 0)

        let rotate = try runVault(["rotate-key", "v.vault", "--key-file", "k1.vaultkey", "--new-key-file", "k2.vaultkey"], in: directory.url)
        #expect(rotate.status == 0)
        #expect(rotate.output == "Rotated the master key of v.vault: only the new key opens it now.\n")
        #expect(try runVault(["verify", "v.vault", "--key-file", "k1.vaultkey"], in: directory.url).status == 77)
        #expect(try runVault(["verify", "v.vault", "--key-file", "k2.vaultkey"], in: directory.url).status == 0)

        let rekey = try runVault(["rekey", "v.vault", "--key-file", "k2.vaultkey", "--new-key-file", "k3.vaultkey"], in: directory.url)
        #expect(rekey.status == 0)
        #expect(rekey.output == "Re-encrypted v.vault under a fresh data key and the new master key.\n")
        #expect(try runVault(["verify", "v.vault", "--key-file", "k2.vaultkey"], in: directory.url).status == 77)
        #expect(try runVault(["verify", "v.vault", "--key-file", "k3.vaultkey"], in: directory.url).status == 0)
    }

    @Test("usage errors, unsafe key files and an open vault have their own exit codes")
    func exitCodes() throws {
        _ = try runVault(["keygen", "--output", "k.vaultkey"], in: directory.url)
        let vault = try makeVault(keyFile: "k.vaultkey")
        let usage = try runVault(["rotate-key", "v.vault", "--key-file", "k.vaultkey"], in: directory.url)
        #expect(usage.status == 64)
        #expect(usage.error.contains("give the new key with --new-key-file or --new-key-id"))
        let both = try runVault(["verify", "v.vault"], in: directory.url)
        #expect(both.status == 64)

        chmod(path("k.vaultkey"), 0o644)
        let unsafe = try runVault(["verify", "v.vault", "--key-file", "k.vaultkey"], in: directory.url)
        #expect(unsafe.status == 77)
        #expect(unsafe.error == "vault: error: Permissions 0644 for '\(path("k.vaultkey"))' are too open: a key file must not be accessible by group or others. Run: chmod 600 '\(path("k.vaultkey"))'\n")
        chmod(path("k.vaultkey"), 0o600)

        _ = try runVault(["keygen", "--output", "n.vaultkey"], in: directory.url)
        let key = try FileKeyStore.readKeyFile(at: directory.file("k.vaultkey"), passphrase: nil).key
        let open = try openVault(URL(fileURLWithPath: vault), key: key)
        let busy = try runVault(["rekey", "v.vault", "--key-file", "k.vaultkey", "--new-key-file", "n.vaultkey"], in: directory.url)
        #expect(busy.status == 75)
        #expect(busy.error.hasPrefix("vault: error: The vault at \(vault) is in use: another connection or process has it open."))
        #expect(try readRows(open).count == 300)
    }

    @Test("passphrases are read from stdin or a file, never from arguments")
    func passphrases() throws {
        try "pass phrase\n".write(to: directory.file("phrase"), atomically: true, encoding: .utf8)
        let keygen = try runVault(["keygen", "--output", "s.vaultkey", "--passphrase-file", "phrase", "--cost", "interactive"], in: directory.url)
        #expect(keygen.status == 0)
        let key = try FileKeyStore.readKeyFile(at: directory.file("s.vaultkey"), passphrase: try Passphrase("pass phrase")).key
        try VaultTestSupport.makeVault(directory.file("v.vault"), key: key, rows: 3).close()
        #expect(try runVault(["verify", "v.vault", "--key-file", "s.vaultkey", "--passphrase-stdin"], input: "pass phrase\n", in: directory.url).status == 0)
        let wrong = try runVault(["verify", "v.vault", "--key-file", "s.vaultkey", "--passphrase-stdin"], input: "other\n", in: directory.url)
        #expect(wrong.status == 77)
        #expect(wrong.error == "vault: error: The passphrase does not open the key file \(path("s.vaultkey")).\n")
        let none = try runVault(["verify", "v.vault", "--key-file", "s.vaultkey"], in: directory.url)
        #expect(none.status == 78)
    }
}
