import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `vault-sync-server serve` child process: started, waited for until it
/// prints `listening on 127.0.0.1:N`, killed and restarted by tests. Its
/// standard error (the structured log) is kept in a file the tests read.
public final class SyncServerProcess: @unchecked Sendable {
    /// The port it listens on.
    public private(set) var port: Int
    /// The database it serves.
    public let databaseURL: String
    /// Its log (standard error), appended across restarts.
    public let logFile: URL
    private let executable: URL
    private let extraArguments: [String]
    private var process: Process?
    private let lock = NSLock()

    /// The base URL devices use.
    public var url: URL {
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { preconditionFailure("a loopback URL always parses") }
        return url
    }

    /// Starts a server on `databaseURL` (on a free port unless `port` is given).
    public init(databaseURL: String, port: Int = 0, logLevel: String = "info", arguments: [String] = []) throws {
        executable = try builtExecutable("vault-sync-server")
        self.databaseURL = databaseURL
        self.port = port
        extraArguments = ["--log-level", logLevel] + arguments
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("vault-sync-server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        try start()
    }

    deinit {
        terminate()
        try? FileManager.default.removeItem(at: logFile)
    }

    /// Starts it (again) on the same port, once stopped.
    public func start() throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--database-url", databaseURL, "--port", String(port)] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        process.standardError = log
        try process.run()
        lock.withLock { self.process = process }
        let reader = output.fileHandleForReading
        var received = Data()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            received += chunk
            let text = String(decoding: received, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on 127.0.0.1:") }),
               let listening = Int(line.split(separator: ":").last ?? "") {
                port = listening
                // Keep draining stdout so the server never blocks on a full pipe.
                Thread { while !reader.availableData.isEmpty {} }.start()
                return
            }
        }
        process.terminate()
        let logged = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        throw HarnessError("vault-sync-server did not start: \(String(decoding: received, as: UTF8.self)) \(logged.suffix(2_000))")
    }

    /// Its process id while it runs.
    public var processIdentifier: Int32? { lock.withLock { process?.processIdentifier } }

    /// The file descriptors it holds open now (Linux: `/proc/PID/fd`); `nil` where that cannot be read.
    public var openDescriptors: Int? {
        guard let pid = processIdentifier,
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        return entries.count
    }

    /// Lowers its limit of open descriptors (soft and hard) to `limit`, as `prlimit` does (Linux).
    public func limitDescriptors(to limit: Int) throws {
        guard let pid = processIdentifier else { throw HarnessError("the server is not running") }
        // glibc declares prlimit(2) only under _GNU_SOURCE, which Swift's Glibc module does not set.
        typealias Prlimit = @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prlimit") else { throw HarnessError("prlimit is not available") }
        let prlimit = unsafeBitCast(symbol, to: Prlimit.self)
        var value = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
        guard prlimit(pid, Int32(RLIMIT_NOFILE.rawValue), &value, nil) == 0 else {
            throw HarnessError("prlimit failed (errno \(errno))")
        }
    }

    /// Kills it at once (SIGKILL): no graceful shutdown.
    public func kill() { signal(SIGKILL) }

    /// Stops it gracefully (SIGTERM) and waits.
    public func terminate() { signal(SIGTERM) }

    private func signal(_ signal: Int32) {
        guard let process = lock.withLock({ self.process }) else { return }
        if process.isRunning {
            Glibc.kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
        lock.withLock { self.process = nil }
    }

    /// Runs `vault-sync-server issue-token` and returns the token it printed.
    public static func issueToken(databaseURL: String, space: String, device: String) throws -> String {
        try run(["issue-token", "--database-url", databaseURL, "--space", space, "--device", device])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `vault-sync-server revoke-token`.
    public static func revokeToken(databaseURL: String, space: String, device: String) throws {
        _ = try run(["revoke-token", "--database-url", databaseURL, "--space", space, "--device", device])
    }

    /// Runs the server executable with `arguments`; returns its standard output, or throws with its standard error.
    public static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = try builtExecutable("vault-sync-server")
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("vault-sync-server \(arguments.first ?? "") failed: \(String(decoding: errorData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// An executable built beside the running one (tests, the demo and the benchmark run from the same build folder).
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
    throw HarnessError("\(name) was not built next to \(CommandLine.arguments[0]): run `swift build` in Server/ first")
}
