import Foundation

/// The server's counters, served in Prometheus's text format at `/metrics`.
/// They count messages, change sets and bytes — never what a change set holds.
public final class SyncServerMetrics: @unchecked Sendable {
    /// A counter or gauge.
    public enum Name: String, CaseIterable, Sendable {
        case connectionsOpened = "vault_sync_connections_opened_total"
        case connectionsOpen = "vault_sync_connections_open"
        case connectionsRefused = "vault_sync_connections_refused_total"
        case changeSetsStored = "vault_sync_change_sets_stored_total"
        case changeSetsDeduplicated = "vault_sync_change_sets_deduplicated_total"
        case bytesStored = "vault_sync_bytes_stored_total"
        case changeSetsServed = "vault_sync_change_sets_served_total"
        case headsPushed = "vault_sync_heads_pushed_total"
        case messagesRejected = "vault_sync_messages_rejected_total"
        case storeErrors = "vault_sync_store_errors_total"
        case uploadsRefusedForeignDevice = "vault_sync_uploads_refused_foreign_device_total"
        case uploadsRefusedSignature = "vault_sync_uploads_refused_signature_total"
        case uploadsRefusedConflicting = "vault_sync_uploads_refused_conflicting_total"
        case connectionsClosedByGuard = "vault_sync_connections_closed_by_guard_total"

        var help: String {
            switch self {
            case .connectionsOpened: return "WebSocket connections accepted"
            case .connectionsOpen: return "WebSocket connections open now"
            case .connectionsRefused: return "Connections refused (bad token, limits)"
            case .changeSetsStored: return "Change sets appended to a log (retries not counted)"
            case .changeSetsDeduplicated: return "Uploaded change sets already stored (retries)"
            case .bytesStored: return "Envelope bytes appended (retries not counted)"
            case .changeSetsServed: return "Change sets sent in download replies"
            case .headsPushed: return "Head notices pushed to devices"
            case .messagesRejected: return "Messages refused (malformed, too large, rate, space)"
            case .storeErrors: return "Requests that failed in the store"
            case .uploadsRefusedForeignDevice: return "Uploads refused: a change set of a device another token uploads for"
            case .uploadsRefusedSignature: return "Uploads and registrations refused: a signature that does not verify with the token's registered device, or unsigned into a signed space"
            case .uploadsRefusedConflicting: return "Uploads refused: an author sequence already stored with other bytes"
            case .connectionsClosedByGuard: return "Connections closed before a request was served (address cap, header timeout or size, a malformed upgrade)"
            }
        }
    }

    private let lock = NSLock()
    private var values: [Name: Int64] = [:]

    /// Empty counters.
    public init() {}

    /// Adds `amount` to `name`.
    public func add(_ name: Name, _ amount: Int64 = 1) { lock.withLock { values[name, default: 0] += amount } }

    /// The current value of `name`.
    public func value(_ name: Name) -> Int64 { lock.withLock { values[name] ?? 0 } }

    /// Every counter in Prometheus's text exposition format.
    public func render() -> String {
        let snapshot = lock.withLock { values }
        return Name.allCases.map { name in
            let type = name == .connectionsOpen ? "gauge" : "counter"
            return "# HELP \(name.rawValue) \(name.help)\n# TYPE \(name.rawValue) \(type)\n\(name.rawValue) \(snapshot[name] ?? 0)\n"
        }.joined()
    }
}
