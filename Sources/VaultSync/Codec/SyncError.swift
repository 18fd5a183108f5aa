/// What can go wrong with sync data: every case says what a person can act
/// on, and none carries a key or a stored value.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes that are not a change set of a known format (truncated, corrupt, or from a newer version).
    case malformedChangeSet(String)
    /// A sealed change set failed authentication: altered, sealed under another key,
    /// or presented for another space, device or sequence than it was sealed for.
    case authenticationFailed(device: SyncDeviceID, sequence: UInt64)
    /// A sealed change set names a key id this device does not hold.
    case unknownKey(keyID: UInt32)
    /// A sync key that is not 32 bytes.
    case invalidKey(String)
    /// libsodium could not be initialised.
    case cryptoUnavailable
    /// A received change set does not fit this device's models (a property of
    /// another type or kind, a class without a primary key): a breaking schema
    /// change. Nothing of the change set was applied.
    case schemaMismatch(String)
    /// A model class cannot be synced as declared (the reason says how to change it).
    case unsupportedModel(String)

    public var description: String {
        switch self {
        case .malformedChangeSet(let reason):
            return "not a valid change set: \(reason)"
        case .authenticationFailed(let device, let sequence):
            return "change set \(sequence) of device \(device) failed authentication: it was altered, or sealed under another sync key, space or identity; it was not applied"
        case .unknownKey(let keyID):
            return "change set sealed under sync key \(keyID), which this device does not hold: add that key to the key store"
        case .invalidKey(let reason):
            return "invalid sync key: \(reason)"
        case .cryptoUnavailable:
            return "libsodium could not be initialised"
        case .schemaMismatch(let reason):
            return "a received change set does not fit this device's models (\(reason)); nothing of it was applied: update the app to the models the other device uses"
        case .unsupportedModel(let reason):
            return "cannot sync this model: \(reason)"
        }
    }
}
