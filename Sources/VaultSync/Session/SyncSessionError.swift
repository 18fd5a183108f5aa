/// Why a sync session could not do its work. Final errors stop the session
/// (``SyncSession/state`` becomes `.invalid`) until the app fixes the cause
/// and opens the vault again; the others are retried with backoff.
public enum SyncSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server does not accept the device token (unknown or revoked): issue a new one.
    case unauthorized(String)
    /// The server refused what the device sent for its space: another space's change set,
    /// a change set of a device another token uploads for, or an author sequence the log
    /// already holds with other bytes.
    case forbidden(String)
    /// The server speaks no protocol version this build does: update the app or the server.
    case unsupportedProtocol(String)
    /// The server could not be reached, or the connection broke.
    case connectionFailed(String)
    /// The server failed a request, or asked the device to slow down.
    case serverError(String)
    /// A change set could not be used (a breaking schema change, another sync key, a corrupt one).
    case sync(SyncError)
    /// The sync section cannot work as given (a key of the wrong length, a URL that is not http or https).
    case invalidConfiguration(String)
    /// A change set in the server's log could not be opened (see ``QuarantinedChangeSet``):
    /// it was skipped and kept apart, and sync goes on. Not final.
    case quarantinedChangeSet(QuarantinedChangeSet)
    /// The server refused a message as too large: the commits since the last
    /// upload make a change set over the server's limit (32 MiB by default,
    /// about 190,000 new small objects). Raise the server's limit, or let the
    /// device upload between batches of a large import.
    case changeSetTooLarge(String)
    /// An entry of the space's log was refused by its trust rules (see ``RefusedChangeSet``):
    /// nothing of it was applied, and sync goes on. Not final.
    case refusedChangeSet(RefusedChangeSet)
    /// This device was removed from the space: it keeps what it had, and reads nothing
    /// the space's members write after its removal (sealed under keys it never receives).
    case removedFromSpace
    /// This device's changes wait in its outbox: it is not a member of the space yet (it
    /// waits for an owner to add it), or a reader. Not final: they upload once it may write.
    case awaitingMembership(String)

    /// Whether the session stops instead of retrying.
    public var isFinal: Bool {
        switch self {
        case .unauthorized, .forbidden, .unsupportedProtocol, .sync, .invalidConfiguration, .changeSetTooLarge, .removedFromSpace: return true
        case .connectionFailed, .serverError, .quarantinedChangeSet, .refusedChangeSet, .awaitingMembership: return false
        }
    }

    public var description: String {
        switch self {
        case .unauthorized(let reason): return "the sync server refused the device token: \(reason); issue a new token (vault-sync-server issue-token)"
        case .forbidden(let reason): return "the sync server refused a change set: \(reason)"
        case .unsupportedProtocol(let reason): return "the sync server speaks another protocol version: \(reason); update the app or the server"
        case .connectionFailed(let reason): return "sync connection failed: \(reason); retrying"
        case .serverError(let reason): return "the sync server could not complete a request: \(reason); retrying"
        case .sync(let error): return "sync stopped: \(error)"
        case .quarantinedChangeSet(let quarantined): return "\(quarantined); sync goes on"
        case .invalidConfiguration(let reason): return "invalid sync configuration: \(reason)"
        case .refusedChangeSet(let refused): return "\(refused); sync goes on"
        case .removedFromSpace: return "this device was removed from the sync space: it keeps what it had and receives nothing newer; sync stopped"
        case .awaitingMembership(let reason): return "this device's changes wait to upload: \(reason)"
        case .changeSetTooLarge(let reason): return "the sync server refused a change set as too large: \(reason); raise its --max-message-bytes, or upload between batches of a large import"
        }
    }

    /// The error a server's close code means.
    static func closed(code: UInt16, reason: String) -> SyncSessionError {
        switch SyncCloseCode(rawValue: code) {
        case .unauthorized: return .unauthorized(reason)
        case .forbidden, .conflictingChangeSet: return .forbidden(reason)
        case .quotaExceeded: return .serverError("the space is over its server's storage quota: \(reason)")
        case .unsupportedVersion: return .unsupportedProtocol(reason)
        case .serverError, .rateLimited: return .serverError(reason)
        case .messageTooLarge: return .changeSetTooLarge(reason)
        case .malformedMessage: return .serverError("the server closed the connection (\(code)): \(reason)")
        case nil where code == 1009: return .changeSetTooLarge("the server's message limit (WebSocket close 1009)")
        case nil: return .connectionFailed("the server closed the connection (\(code))\(reason.isEmpty ? "" : ": \(reason)")")
        }
    }
}
