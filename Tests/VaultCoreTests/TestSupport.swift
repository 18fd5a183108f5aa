import Foundation
import Testing
@testable import VaultCore

/// A fresh directory under the system temporary directory, removed on deinit.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init(_ label: String = "vaultkit") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Every regular file in the directory (db, -wal, -shm, -journal…).
    func allFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A marker that must never appear on disk in plaintext.
let plaintextMarker = "PLAINTEXT-MARKER-7f3a91c2"

extension Data {
    func contains(_ needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}

/// Opens (or creates) an encrypted vault in `directory`.
func openVault(_ url: URL, key: MasterKey, configure: (inout VaultDatabase.Configuration) -> Void = { _ in }) throws -> VaultDatabase {
    var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: key)
    configure(&configuration)
    return try VaultDatabase(configuration: configuration)
}

/// The rows of table `t` as (id, body) pairs, ordered by id.
func readRows(_ vault: VaultDatabase) throws -> [(Int64, String)] {
    try vault.read { db in
        try db.fetchAll("SELECT id, body FROM t ORDER BY id").map { ($0[0].int64 ?? -1, $0[1].string ?? "") }
    }
}

/// Hex of a key's bytes, to hand to the helper on stdin.
func hex(_ key: MasterKey) -> String {
    key.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
}

/// The VaultTestHelper executable, built beside the test bundle.
func helperExecutable() throws -> URL { try builtExecutable("VaultTestHelper") }

/// An executable product built beside the test bundle.
func builtExecutable(_ name: String) throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
    }
    for _ in 0..<5 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    throw VaultError.io(path: name, detail: "executable not found near the test bundle")
}

/// Runs the helper to completion with `input` on stdin; returns its stdout.
func runHelper(_ arguments: [String], input: String) throws -> String {
    let process = Process()
    process.executableURL = try helperExecutable()
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data((input + "\n").utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self)
}

/// Creates a vault with table `t(id, body)` holding `count` rows whose bodies carry the marker.
@discardableResult
func makeVault(_ url: URL, key: MasterKey, rows count: Int, bodyLength: Int = 60,
               configure: (inout VaultDatabase.Configuration) -> Void = { _ in }) throws -> VaultDatabase {
    let vault = try openVault(url, key: key, configure: configure)
    try vault.write { db in
        try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        let insert = try db.cachedStatement("INSERT INTO t(id, body) VALUES (?, ?)")
        for i in 1...count {
            let padding = String(repeating: "x", count: max(0, bodyLength - plaintextMarker.count))
            try insert.execute([.integer(Int64(i)), .text("\(plaintextMarker)\(padding)\(i)")])
        }
    }
    return vault
}

/// Asserts that no file in `directory` contains the plaintext marker.
func expectNoPlaintext(in directory: TemporaryDirectory, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for file in try directory.allFiles() {
        let data = try Data(contentsOf: file)
        #expect(!data.contains(plaintextMarker), "plaintext found in \(file.lastPathComponent) \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
    }
}

/// The sealed units of a WAL file of `size` bytes, as (physical range, location).
func walUnits(fileSize size: Int) -> [(range: Range<Int>, location: IntegrityFailure.Location)] {
    let layout = SealedFileLayout.wal
    let logicalSize = layout.logicalSize(physicalSize: Int64(size))
    var result: [(Range<Int>, IntegrityFailure.Location)] = []
    var logical: Int64 = 0
    while logical < logicalSize {
        let unit = layout.unit(at: logical)
        result.append((Int(unit.physicalStart)..<Int(unit.physicalEnd), unit.location))
        logical = unit.logicalEnd
    }
    return result
}
