/// A change set from the relay's log that this device could not open: its envelope did
/// not authenticate (noise uploaded by a token holder without the sync key, a change set
/// sealed under another sync key or a key id this device does not hold, damage, or an
/// envelope format this build does not read).
///
/// A device skips it and goes on syncing, so one bad entry of the log never stops a
/// space. The envelope is kept in the vault (``SyncedVault/quarantinedChangeSets()``),
/// the session's error handler hears ``SyncSessionError/quarantinedChangeSet(_:)``, and
/// later change sets of the same device wait behind it (they depend on it). Every
/// download tries the kept envelopes again first (``SyncedVault/retryQuarantined(with:)``):
/// one sealed under a key this device receives later, or in a format an update of the
/// app reads, is then merged with everything that waited behind it.
public struct QuarantinedChangeSet: Sendable, Equatable, CustomStringConvertible {
    /// Where the relay's log holds it.
    public var serverSequence: UInt64
    /// The device its header names.
    public var device: SyncDeviceID
    /// The sequence its header names.
    public var sequence: UInt64
    /// Why it could not be opened (a ``SyncError``'s description: never a key or a value).
    public var reason: String
    /// The sealed bytes, as delivered.
    public var envelope: [UInt8]

    /// A quarantined change set.
    public init(serverSequence: UInt64, device: SyncDeviceID, sequence: UInt64, reason: String, envelope: [UInt8]) {
        self.serverSequence = serverSequence
        self.device = device
        self.sequence = sequence
        self.reason = reason
        self.envelope = envelope
    }

    public var description: String {
        "change set \(sequence) of device \(device) at position \(serverSequence) of the server's log could not be opened (\(reason)); it was skipped and kept apart"
    }
}
