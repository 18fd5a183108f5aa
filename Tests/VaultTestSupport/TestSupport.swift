import Foundation
import VaultCore

// Test support shared by every test target: temporary directories, the
// helper executables built beside the tests, and small vault fixtures. One
// module, so that no target grows its own copy.

/// A fresh directory under the system temporary directory, removed on deinit.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "vaultkit") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Every regular file in the directory (db, -wal, -shm, -journal…).
    public func allFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A marker that must never appear on disk in plaintext.
public let plaintextMarker = "PLAINTEXT-MARKER-7f3a91c2"

extension Data {
    public func contains(_ needle: String) -> Bool {
        range(of: Data(needle.utf8)) != nil
    }
}

/// Opens (or creates) an encrypted vault in `directory`.
public func openVault(_ url: URL, key: MasterKey, configure: (inout VaultDatabase.Configuration) -> Void = { _ in }) throws -> VaultDatabase {
    var configuration = VaultDatabase.Configuration(fileURL: url, masterKey: key)
    configure(&configuration)
    return try VaultDatabase(configuration: configuration)
}

/// The rows of table `t` as (id, body) pairs, ordered by id.
public func readRows(_ vault: VaultDatabase) throws -> [(Int64, String)] {
    try vault.read { db in
        try db.fetchAll("SELECT id, body FROM t ORDER BY id").map { ($0[0].int64 ?? -1, $0[1].string ?? "") }
    }
}

/// Hex of a key's bytes, to hand to the helper on stdin.
public func hex(_ key: MasterKey) -> String {
    key.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
}

/// The VaultTestHelper executable, built beside the test bundle.
public func helperExecutable() throws -> URL { try builtExecutable("VaultTestHelper") }

/// An executable product built beside the test bundle.
public func builtExecutable(_ name: String) throws -> URL {
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
public func runHelper(_ arguments: [String], input: String) throws -> String {
    let run = try runBuiltExecutable("VaultTestHelper", arguments, input: input)
    // What the helper said on standard error stays in the test log.
    if !run.errors.isEmpty { FileHandle.standardError.write(Data(run.errors.utf8)) }
    return run.output
}

/// What a child process did: how it ended and what it printed.
public struct ChildRun: Sendable {
    public let status: Int32
    public let reason: Process.TerminationReason
    public let output: String
    public let errors: String
}

/// Runs the executable `name` built beside the tests with `arguments`, writes
/// `input` and a newline to its standard input, and waits for it. The runtime's
/// backtracer is off: a trap ends the process at once (a backtracer that hangs
/// would hold the pipes open).
public func runBuiltExecutable(_ name: String, _ arguments: [String], input: String) throws -> ChildRun {
    let process = Process()
    process.executableURL = try builtExecutable(name)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data((input + "\n").utf8))
    try stdin.fileHandleForWriting.close()
    // Standard error drains on its own thread: a full pipe never stalls the child.
    let errors = Locked<Data>(Data())
    let drained = DispatchSemaphore(value: 0)
    Thread {
        let data = stderr.fileHandleForReading.readDataToEndOfFile()
        errors.withLock { $0 = data }
        drained.signal()
    }.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    process.waitUntilExit()
    return ChildRun(status: process.terminationStatus, reason: process.terminationReason,
                    output: String(decoding: output, as: UTF8.self), errors: String(decoding: errors.withLock { $0 }, as: UTF8.self))
}

/// Creates a vault with table `t(id, body)` holding `count` rows whose bodies carry the marker.
@discardableResult
public func makeVault(_ url: URL, key: MasterKey, rows count: Int, bodyLength: Int = 60,
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

/// The permission bits of a file (0 if it cannot be read).
public func fileMode(_ path: String) -> UInt16 {
    var status = stat()
    guard stat(path, &status) == 0 else { return 0 }
    return UInt16(status.st_mode & 0o7777)
}

/// Runs `body` on a new thread (not a pool thread that might be the caller's)
/// and waits for its result.
public func onNewThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let outcome = Locked<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        done.signal()
    }
    thread.start()
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { throw VaultError.misuse("the thread ended without a result") }
    return try result.get()
}
