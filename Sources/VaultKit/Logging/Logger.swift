import Foundation
import VaultCore

// MARK: - Logging
//
// Realm's `Logger`: one process-wide logger (`Logger.shared`) with a level
// threshold and a function that receives each message. VaultKit logs what a
// developer debugging an app wants to see — vaults opened, migrations run,
// vaults deleted for a migration, compactions, commits — and never a key, a
// stored value or a query argument (SECURITY.md, "Errors and logs"): messages
// name paths, classes, versions and counts only. A message is built only when
// its level passes the threshold, so a quiet logger costs one lock per event.

/// How much a ``Logger`` reports, from nothing (`off`) to everything (`all`) — Realm's `LogLevel`.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Nothing.
    case off
    /// Errors the vault cannot recover from.
    case fatal
    /// Failed operations.
    case error
    /// Something that needs attention (a vault deleted because a migration was needed).
    case warn
    /// Notable events: migrations, compactions.
    case info
    /// Vaults opened, with their schema.
    case detail
    /// More detail for debugging VaultKit itself.
    case debug
    /// Every commit.
    case trace
    /// Everything.
    case all

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's name as Realm prints it (`Details`, `Trace`, …).
    public var description: String {
        switch self {
        case .off: "Off"
        case .fatal: "Fatal"
        case .error: "Error"
        case .warn: "Warning"
        case .info: "Info"
        case .detail: "Details"
        case .debug: "Debug"
        case .trace: "Trace"
        case .all: "All"
        }
    }
}

/// Receives VaultKit's log messages — Realm's `Logger`.
///
/// ```swift
/// Logger.shared = Logger(level: .detail) { level, message in
///     print("VaultKit \(level): \(message)")      // "VaultKit Details: DB: opened …"
/// }
/// Logger.shared.level = .trace                     // every commit too
/// ```
///
/// The default logger writes warnings and more severe messages to standard
/// error (Realm's default threshold is `info`, sent to the system log; VaultKit
/// keeps a terminal quiet until something needs attention). Messages never
/// contain keys, stored values or query arguments.
public final class Logger: Sendable {
    private let threshold: Locked<LogLevel>
    private let logFunction: @Sendable (LogLevel, String) -> Void

    /// A logger that passes messages at `level` or more severe to `logFunction`
    /// (called on the thread that logs; it must be thread-safe).
    public init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        threshold = Locked(level)
        self.logFunction = logFunction
    }

    /// The threshold: messages less severe than it are not built or passed on.
    public var level: LogLevel {
        get { threshold.withLock { $0 } }
        set { threshold.withLock { $0 = newValue } }
    }

    /// Passes `message` on if `level` passes the threshold (`message` is built only then).
    public func log(level: LogLevel, message: @autoclosure () -> String) {
        guard level != .off, level <= self.level else { return }
        logFunction(level, message())
    }

    private static let sharedLogger = Locked(Logger(level: .warn) { level, message in
        FileHandle.standardError.write(Data("VaultKit \(level): \(message)\n".utf8))
    })

    /// The logger VaultKit writes to.
    public static var shared: Logger {
        get { sharedLogger.withLock { $0 } }
        set { sharedLogger.withLock { $0 = newValue } }
    }
}

/// VaultKit's own log calls: the shared logger, a "DB: " prefix as Realm's core uses.
enum VaultLog {
    static func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        Logger.shared.log(level: level, message: "DB: " + message())
    }
}
