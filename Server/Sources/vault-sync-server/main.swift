import ArgumentParser
import Foundation
import Logging
import VaultSyncServer

/// `vault-sync-server`: the relay devices sync through, and its token admin.
@main
struct VaultSyncServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-sync-server",
        abstract: "Relays sealed change sets between a user's devices, stored in PostgreSQL.",
        subcommands: [Serve.self, IssueToken.self, RevokeToken.self])
}

struct DatabaseOptions: ParsableArguments {
    @Option(help: "The PostgreSQL database, as postgres://user[:password]@host[:port]/database.")
    var databaseURL: String
    @Option(help: "Seconds to wait for the database at start before giving up.")
    var connectTimeout = 15

    func open(logger: Logger) throws -> (PostgresSyncStore, DatabaseURL) {
        let url = try DatabaseURL(databaseURL)
        return (PostgresSyncStore(url: url, logger: logger), url)
    }
}

/// Runs `body` with `store` driving its connections, after migrating its
/// tables; a database that cannot be reached within `timeout` seconds ends
/// the process with a message (exit status 69) instead of waiting for ever.
func withStore<T: Sendable>(_ store: PostgresSyncStore, url: DatabaseURL, timeout: Int,
                            _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await store.run()
            return nil
        }
        group.addTask {
            let watchdog = Task {
                try await Task.sleep(for: .seconds(max(1, timeout)))
                FileHandle.standardError.write(Data("vault-sync-server: cannot reach the database at \(url) within \(timeout) s: is PostgreSQL running there, and do the role and database exist?\n".utf8))
                exit(69)
            }
            do {
                try await store.migrate()
                watchdog.cancel()
            } catch {
                watchdog.cancel()
                throw SyncServerError.store("cannot prepare the database at \(url) (\(type(of: error))): do the role and database exist, and may the role create tables?")
            }
            return try await body()
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let result { return result }
        }
        throw SyncServerError.store("the database connection ended")
    }
}

func makeLogger(_ level: String) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = Logger.Level(rawValue: level) ?? .info
        return handler
    }
    return Logger(label: "vault-sync-server")
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serves devices; prints `listening on HOST:PORT` once ready.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0: any free port).") var port: Int
    @Option(help: "The largest message a device may send, in bytes.") var maxMessageBytes = SyncServerLimits().maxMessageBytes
    @Option(help: "Messages per second one connection may send (bursts of twice as many).") var messagesPerSecond = SyncServerLimits().messagesPerSecond
    @Option(help: "Open connections per device token.") var connectionsPerDevice = SyncServerLimits().connectionsPerDevice
    @Option(help: "Open TCP connections per client address, authenticated or not (0: none; default 64, or none when --host is a loopback address, where a proxy in front makes every client one address).")
    var connectionsPerAddress: Int?
    @Option(help: "Seconds a new connection has to send its request's headers.") var headerTimeout = 10
    @Option(help: "Seconds a plain HTTP connection may sit idle between requests.") var idleTimeout = 60
    @Option(help: "Envelope bytes one space's log may hold.") var maxSpaceBytes = SyncServerLimits().maxSpaceBytes
    @Option(help: "Received message bytes all connections may hold unprocessed together.") var maxBufferedBytes = SyncServerLimits().maxBufferedBytes
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func run() async throws {
        let logger = makeLogger(logLevel)
        let (store, url) = try database.open(logger: logger)
        var limits = SyncServerLimits()
        limits.maxMessageBytes = maxMessageBytes
        limits.maxEnvelopeBytes = min(limits.maxEnvelopeBytes, maxMessageBytes)
        limits.messagesPerSecond = messagesPerSecond
        limits.messageBurst = messagesPerSecond * 2
        limits.connectionsPerDevice = connectionsPerDevice
        let loopback = host == "127.0.0.1" || host == "::1" || host == "localhost"
        limits.connectionsPerAddress = connectionsPerAddress ?? (loopback ? 0 : SyncServerLimits().connectionsPerAddress)
        limits.headerTimeout = .seconds(headerTimeout)
        limits.idleTimeout = .seconds(idleTimeout)
        limits.maxSpaceBytes = maxSpaceBytes
        limits.maxBufferedBytes = maxBufferedBytes
        let server = SyncServer(host: host, port: port, store: store, limits: limits, logger: logger)
        let host = self.host
        try await withStore(store, url: url, timeout: database.connectTimeout) {
            try await server.run { port in
                // Scripts wait for this line: written straight to the file descriptor, unbuffered.
                FileHandle.standardOutput.write(Data("listening on \(host):\(port)\n".utf8))
            }
        }
    }
}

struct IssueToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Issues a token for a device of a space; prints only the token.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The space (the name devices give as SyncConfiguration.space).") var space: String
    @Option(help: "A label for the device (its owner's name for it).") var device: String

    func run() async throws {
        guard !space.isEmpty, !device.isEmpty else { throw SyncServerError.invalidArgument("--space and --device must not be empty") }
        let logger = makeLogger("warning")
        let (store, url) = try database.open(logger: logger)
        let token = DeviceToken.generate()
        guard let digest = DeviceToken.digest(token) else { throw SyncServerError.invalidArgument("token generation failed") }
        let (space, device) = (self.space, self.device)
        _ = try await withStore(store, url: url, timeout: database.connectTimeout) { try await store.issueToken(digest: digest, spaceName: space, deviceLabel: device) }
        print(token)
    }
}

struct RevokeToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revokes every token of a device of a space; its connections close at their next request.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The space.") var space: String
    @Option(help: "The device label given to issue-token.") var device: String

    func run() async throws {
        let logger = makeLogger("warning")
        let (store, url) = try database.open(logger: logger)
        let (space, device) = (self.space, self.device)
        let count = try await withStore(store, url: url, timeout: database.connectTimeout) { try await store.revokeTokens(spaceName: space, deviceLabel: device) }
        guard count > 0 else { throw SyncServerError.invalidArgument("no live token for device \(device) of space \(space)") }
        print("revoked \(count) token\(count == 1 ? "" : "s")")
    }
}
