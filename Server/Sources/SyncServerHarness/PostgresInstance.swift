import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of its own for a test, the demo or the benchmark:
/// `initdb` into a temporary folder, `postgres` on a free loopback port,
/// stopped and removed by ``stop()`` (or when released). PostgreSQL refuses to
/// run as root, so as root it runs as the `postgres` user (Debian's package creates it).
public final class PostgresInstance: @unchecked Sendable {
    /// The data folder (removed at stop).
    public let folder: URL
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let binaries: URL
    private var process: Process?
    private let lock = NSLock()

    /// The URL servers connect with (trust authentication on loopback, role and database `postgres`).
    public var databaseURL: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Initialises a cluster and starts it; throws with the tool's output when a step fails.
    public init() throws {
        binaries = try Self.findBinaries()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vault-sync-pg-\(UUID().uuidString)")
        port = try freeLoopbackPort()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            if geteuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", folder.path]) }
            try Self.run(binaries.appendingPathComponent("initdb").path,
                         ["-D", folder.appendingPathComponent("data").path, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"],
                         asPostgres: true)
            try start()
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    deinit { stop() }

    /// Starts the server (again, after ``stopServer()``) and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        let (executable, arguments) = Self.command(binaries.appendingPathComponent("postgres").path, [
            "-D", folder.appendingPathComponent("data").path, "-p", String(port), "-k", folder.path,
            "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "log_min_messages=warning",
        ], asPostgres: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let log = folder.appendingPathComponent("postgres.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if canConnect(port: port) { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw HarnessError("PostgreSQL did not start on port \(port): \(output.suffix(2_000))")
    }

    /// Stops the server (fast shutdown) and keeps its data, for a restart.
    public func stopServer() {
        guard let process = lock.withLock({ self.process }) else { return }
        if process.isRunning {
            // The postmaster itself (as root, `process` is runuser, which does not pass SIGINT on): fast shutdown.
            let pidFile = folder.appendingPathComponent("data/postmaster.pid")
            if let text = try? String(contentsOf: pidFile, encoding: .utf8), let line = text.split(separator: "\n").first,
               let pid = Int32(line) {
                kill(pid, SIGINT)
            } else {
                kill(process.processIdentifier, SIGINT)
            }
            process.waitUntilExit()
        }
        lock.withLock { self.process = nil }
    }

    /// Stops the server and removes its data.
    public func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs SQL through `psql` and returns its unaligned output (for tests reading what the server stored).
    public func psql(_ sql: String) throws -> String {
        try Self.run(binaries.appendingPathComponent("psql").path,
                     ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    private static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.compactMap(Int.init).sorted() ?? []
        for version in versions.reversed() {
            let bin = root.appendingPathComponent("\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw HarnessError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    }

    private static func command(_ executable: String, _ arguments: [String], asPostgres: Bool) -> (String, [String]) {
        guard asPostgres, geteuid() == 0 else { return (executable, arguments) }
        return ("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
        let (path, fullArguments) = command(executable, arguments, asPostgres: asPostgres)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = fullArguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw HarnessError("\(URL(fileURLWithPath: executable).lastPathComponent) failed (\(process.terminationStatus)): \(text.suffix(2_000))")
        }
        return text
    }
}

/// Why the harness could not set something up.
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 nothing listens on now.
public func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw HarnessError("socket() failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard bound == 0 else { throw HarnessError("bind() failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
public func canConnect(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
}
