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

    func open(logger: Logger) throws -> PostgresSyncStore {
        PostgresSyncStore(url: try DatabaseURL(databaseURL), logger: logger)
    }
}

/// Runs `body` with `store` driving its connections, after migrating its tables.
func withStore<T: Sendable>(_ store: PostgresSyncStore, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await store.run()
            return nil
        }
        group.addTask {
            do { try await store.migrate() } catch {
                throw SyncServerError.store("cannot reach or prepare the database (\(type(of: error))): is PostgreSQL running, and does the URL name an existing database and role?")
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
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func run() async throws {
        let logger = makeLogger(logLevel)
        let store = try database.open(logger: logger)
        var limits = SyncServerLimits()
        limits.maxMessageBytes = maxMessageBytes
        limits.maxEnvelopeBytes = min(limits.maxEnvelopeBytes, maxMessageBytes)
        limits.messagesPerSecond = messagesPerSecond
        limits.messageBurst = messagesPerSecond * 2
        limits.connectionsPerDevice = connectionsPerDevice
        let server = SyncServer(host: host, port: port, store: store, limits: limits, logger: logger)
        let host = self.host
        try await withStore(store) {
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
        let store = try database.open(logger: logger)
        let token = DeviceToken.generate()
        guard let digest = DeviceToken.digest(token) else { throw SyncServerError.invalidArgument("token generation failed") }
        let (space, device) = (self.space, self.device)
        _ = try await withStore(store) { try await store.issueToken(digest: digest, spaceName: space, deviceLabel: device) }
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
        let store = try database.open(logger: logger)
        let (space, device) = (self.space, self.device)
        let count = try await withStore(store) { try await store.revokeTokens(spaceName: space, deviceLabel: device) }
        guard count > 0 else { throw SyncServerError.invalidArgument("no live token for device \(device) of space \(space)") }
        print("revoked \(count) token\(count == 1 ? "" : "s")")
    }
}
