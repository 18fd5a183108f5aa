import Foundation
import Testing
import VaultCore
import VaultTestSupport
import VaultKit

// Realm's Logger: the threshold, the shared logger, what is logged at each
// level — and that no stored value reaches a message.

@Suite("Logger", .serialized)
struct LoggerTests {
    /// Runs `body` with a logger collecting messages, restoring the shared logger after.
    func collecting(level: LogLevel, _ body: (Logger) throws -> Void) rethrows -> [String] {
        let saved = Logger.shared
        defer { Logger.shared = saved }
        let messages = Locked<[String]>([])
        let logger = Logger(level: level) { level, message in messages.withLock { $0.append("\(level) \(message)") } }
        Logger.shared = logger
        try body(logger)
        return messages.withLock { $0 }
    }

    @Test("the threshold decides what arrives: nothing at .off, opens at .detail, commits only at .trace; no stored value in any message")
    func levels() throws {
        let directory = try TemporaryDirectory("logger-levels")
        let url = directory.file("logged.vault")
        func openAndWrite(_ secret: String) throws {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self]))
            try vault.write { vault.add(Ticket(value: ["id": Int.random(in: 1...1_000_000), "title": secret])) }
        }
        let off = try collecting(level: .off) { _ in try openAndWrite("secret-off") }
        #expect(off.filter { $0.contains(url.lastPathComponent) }.isEmpty)

        let detail = try collecting(level: .detail) { _ in try openAndWrite("secret-detail") }
        let mine = detail.filter { $0.contains(url.lastPathComponent) }
        #expect(mine.contains { $0.hasPrefix("Details DB: opened") })
        #expect(!mine.contains { $0.hasPrefix("Trace") }, "commits are trace")

        let trace = try collecting(level: .detail) { logger in
            logger.level = .trace
            #expect(Logger.shared.level == .trace)
            try openAndWrite("secret-trace")
        }
        #expect(trace.contains { $0.hasPrefix("Trace DB: commit") && $0.contains(url.lastPathComponent) })
        #expect(!(off + detail + trace).contains { $0.contains("secret") }, "stored values never reach a log")
    }

    @Test("migrations are logged at .info with the versions")
    func migrationIsLogged() throws {
        let directory = try TemporaryDirectory("logger-migration")
        let url = directory.file("m.vault")
        do {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self]))
            try vault.write { vault.add(Ticket(value: ["id": 1])) }
        }
        let messages = try collecting(level: .info) { _ in
            var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 4, objectTypes: [Ticket.self])
            configuration.migrationBlock = { _, _ in }
            _ = try Vault(configuration: configuration)
        }
        #expect(messages.contains { $0.hasPrefix("Info DB: migrated") && $0.contains("from schema version 0 to 4") && $0.contains("m.vault") })
    }
}
