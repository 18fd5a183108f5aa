import Foundation

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
    /// Messages a connection may have received and not yet processed; one more closes
    /// it as rate-limited (the rate is checked as messages arrive, before any work).
    public var maxQueuedMessages: Int
    /// Received message bytes all connections of this process may hold unprocessed
    /// together; a message that would go over closes its connection as rate-limited
    /// (the device retries later), so concurrent large uploads cannot exhaust memory.
    public var maxBufferedBytes: Int
    /// Envelope bytes one space's log may hold; an upload over it stores nothing and
    /// closes with ``VaultSync/SyncCloseCode/quotaExceeded``.
    public var maxSpaceBytes: Int64
    /// Open TCP connections per client address (any state, authenticated or not); 0: no cap.
    /// Behind a proxy every connection comes from the proxy's address: cap there instead.
    public var connectionsPerAddress: Int
    /// Seconds a new connection has to send its first request's whole header block (later
    /// requests of a kept-alive connection fall under ``idleTimeout``).
    public var headerTimeout: Duration
    /// Seconds a plain HTTP connection may sit idle between requests (WebSockets are
    /// kept alive by pings instead).
    public var idleTimeout: Duration
    /// The largest request header block, in bytes.
    public var maxHeaderBytes: Int

    /// The defaults: 40 MiB messages, 32 MiB change sets, 1,000 change sets per
    /// upload, 4 MiB / 1,000-item pages, 200 messages per second (bursts of 400),
    /// 4 connections per device, 64 queued messages per connection, 256 MiB of
    /// received messages per process, 8 GiB per space, 64 connections per address,
    /// 10 s to send a request's headers, 60 s idle HTTP connections, 16 KiB of headers.
    public init(maxMessageBytes: Int = 40 << 20, maxEnvelopeBytes: Int = 32 << 20, maxEnvelopesPerUpload: Int = 1_000,
                maxPageItems: Int = 1_000, maxPageBytes: Int = 4 << 20, messagesPerSecond: Double = 200,
                messageBurst: Double = 400, connectionsPerDevice: Int = 4, maxQueuedMessages: Int = 64,
                maxBufferedBytes: Int = 256 << 20, maxSpaceBytes: Int64 = 8 << 30, connectionsPerAddress: Int = 64,
                headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), maxHeaderBytes: Int = 16 << 10) {
        self.maxQueuedMessages = maxQueuedMessages
        self.maxBufferedBytes = maxBufferedBytes
        self.maxSpaceBytes = maxSpaceBytes
        self.connectionsPerAddress = connectionsPerAddress
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxHeaderBytes = maxHeaderBytes
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

/// Bytes of received, unprocessed messages held by all of a process's connections:
/// a message is admitted only while the total stays within the limit.
final class MessageBudget: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var held = 0

    init(limit: Int) { self.limit = limit }

    /// Takes `bytes` from the budget; false (nothing taken) when that would go over it.
    func reserve(_ bytes: Int) -> Bool {
        lock.withLock {
            guard held + bytes <= limit else { return false }
            held += bytes
            return true
        }
    }

    /// Gives back `bytes` taken by ``reserve(_:)``.
    func release(_ bytes: Int) { lock.withLock { held -= bytes } }
}
