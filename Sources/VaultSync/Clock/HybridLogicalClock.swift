import Foundation

/// A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014):
/// readings that follow the wall clock when it moves forward, never go back
/// when it does not, and always exceed every reading the device has seen
/// from another device.
///
/// A reading packs milliseconds since 1970 (high 48 bits) and a counter (low
/// 16 bits) into one `UInt64`, so readings compare as integers. Devices whose
/// clocks are hours apart still order causally related writes correctly: a
/// write made after receiving another device's change set is stamped later
/// than every stamp in it (``receive(_:)``), whatever the local wall clock
/// says. Concurrent writes (neither device had seen the other's) are ordered
/// by their readings, then by device id — a device whose clock runs ahead
/// wins those while it stays ahead; no write is ever rejected for its time.
///
/// The counter carries into the millisecond part when it overflows, so the
/// clock runs at most 1 ms ahead per 65,536 readings taken within one
/// millisecond.
public struct HybridLogicalClock: Sendable {
    /// The last reading taken or received.
    public private(set) var latest: UInt64
    /// The wall clock, in milliseconds since 1970 (injected by tests to skew devices).
    private let now: @Sendable () -> UInt64

    /// A clock that has seen `latest` (0 for a new device) and reads `now` for physical time.
    public init(latest: UInt64 = 0, now: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) {
        self.latest = latest
        self.now = now
    }

    /// The system clock in milliseconds since 1970.
    public static let wallClockMilliseconds: @Sendable () -> UInt64 = {
        UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    }

    /// A reading for a local event: later than every reading so far.
    public mutating func tick() -> UInt64 {
        let physical = now() << 16
        latest = Swift.max(latest &+ 1, physical)
        return latest
    }

    /// Takes in the greatest reading of a received change set, so that every
    /// later local reading exceeds it.
    public mutating func receive(_ remote: UInt64) {
        latest = Swift.max(latest, remote)
    }
}
