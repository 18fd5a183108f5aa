/// When and where an operation was made: a hybrid-logical-clock reading and
/// the device that took it. Stamps order every write of every device: by
/// clock, then by device id (the tie-break), so two devices always agree on
/// which of two concurrent writes is later.
///
/// The zero stamp (``zero``) means "never written" and precedes every stamp a
/// device takes.
public struct SyncStamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The clock reading: milliseconds since 1970 in the high 48 bits, a counter in the low 16.
    public var clock: UInt64
    /// The device that took it.
    public var device: SyncDeviceID

    /// A stamp of `clock` on `device`.
    public init(clock: UInt64, device: SyncDeviceID) {
        self.clock = clock
        self.device = device
    }

    /// Precedes every stamp a device takes.
    public static let zero = SyncStamp(clock: 0, device: SyncDeviceID(rawValue: 0))

    public static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        lhs.clock != rhs.clock ? lhs.clock < rhs.clock : lhs.device < rhs.device
    }

    public var description: String { "\(clock >> 16).\(clock & 0xFFFF)@\(device)" }
}

/// A device's identity within a sync space: 64 random bits chosen when the
/// device first syncs. It names the device to the relay; it is not a secret.
public struct SyncDeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 64 bits.
    public var rawValue: UInt64

    /// The device named by `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: SyncDeviceID, rhs: SyncDeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue, radix: 16) }
}
