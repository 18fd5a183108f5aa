/// What one device may ask of a server process. A device over a limit is
/// closed with ``VaultSync/SyncCloseCode/rateLimited`` or
/// ``VaultSync/SyncCloseCode/messageTooLarge``, and nothing of the offending
/// message is stored.
public struct SyncServerLimits: Sendable {
    /// The largest message a device may send or receive (one WebSocket message), in bytes.
    public var maxMessageBytes: Int
    /// The largest sealed change set accepted, in bytes.
    public var maxEnvelopeBytes: Int
    /// The most change sets in one upload message.
    public var maxEnvelopesPerUpload: Int
    /// The most change sets one download reply carries.
    public var maxPageItems: Int
    /// Envelope bytes after which a download reply stops (it carries at least one change set).
    public var maxPageBytes: Int
    /// Messages per second a connection may send, sustained.
    public var messagesPerSecond: Double
    /// Messages a connection may send in a burst above the sustained rate.
    public var messageBurst: Double
    /// Open connections per device token in this process.
    public var connectionsPerDevice: Int

    /// The defaults: 40 MiB messages, 32 MiB change sets, 1,000 change sets per
    /// upload, 4 MiB / 1,000-item pages, 200 messages per second (bursts of 400),
    /// 4 connections per device.
    public init(maxMessageBytes: Int = 40 << 20, maxEnvelopeBytes: Int = 32 << 20, maxEnvelopesPerUpload: Int = 1_000,
                maxPageItems: Int = 1_000, maxPageBytes: Int = 4 << 20, messagesPerSecond: Double = 200,
                messageBurst: Double = 400, connectionsPerDevice: Int = 4) {
        self.maxMessageBytes = maxMessageBytes
        self.maxEnvelopeBytes = maxEnvelopeBytes
        self.maxEnvelopesPerUpload = maxEnvelopesPerUpload
        self.maxPageItems = maxPageItems
        self.maxPageBytes = maxPageBytes
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.connectionsPerDevice = connectionsPerDevice
    }
}

/// A token bucket: `rate` tokens a second, holding at most `burst`.
struct TokenBucket {
    private let rate: Double
    private let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
        last = .now
    }

    /// Takes one token; false when the bucket is empty.
    mutating func take() -> Bool {
        let now = ContinuousClock.Instant.now
        let elapsed = last.duration(to: now)
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
