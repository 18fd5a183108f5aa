import Logging
import VaultSync

/// The devices connected to this process, by space, and the pushes they get.
///
/// Every append, by any process on the same database, reaches the hub as a
/// (space, head) notification; each connection of that space gets a head
/// notice and downloads what it lacks. A notification lost while the listening
/// connection was down (PostgreSQL restarted) is made up for by polling the
/// heads of connected spaces every couple of seconds, so a device never waits
/// for a change longer than that.
actor SpaceHub {
    struct Subscriber {
        let tokenID: Int64
        let continuation: AsyncStream<UInt64>.Continuation
    }

    private var spaces: [SyncSpaceID: [Int: Subscriber]] = [:]
    private var heads: [SyncSpaceID: UInt64] = [:]
    private var nextID = 0
    private let metrics: SyncServerMetrics

    init(metrics: SyncServerMetrics) { self.metrics = metrics }

    /// Registers a connection; nil when the device already has `limit` connections here.
    func subscribe(space: SyncSpaceID, tokenID: Int64, limit: Int) -> (id: Int, heads: AsyncStream<UInt64>)? {
        let open = spaces[space]?.values.filter { $0.tokenID == tokenID }.count ?? 0
        guard open < limit else { return nil }
        nextID += 1
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        spaces[space, default: [:]][nextID] = Subscriber(tokenID: tokenID, continuation: continuation)
        metrics.add(.connectionsOpen)
        return (nextID, stream)
    }

    func unsubscribe(space: SyncSpaceID, id: Int) {
        guard let subscriber = spaces[space]?.removeValue(forKey: id) else { return }
        subscriber.continuation.finish()
        if spaces[space]?.isEmpty == true {
            spaces[space] = nil
            heads[space] = nil
        }
        metrics.add(.connectionsOpen, -1)
    }

    /// The log of `space` now ends at `head`: tell its connections (once per new head).
    func appended(space: SyncSpaceID, head: UInt64) {
        guard let subscribers = spaces[space], head > (heads[space] ?? 0) else { return }
        heads[space] = head
        for subscriber in subscribers.values { subscriber.continuation.yield(head) }
        metrics.add(.headsPushed, Int64(subscribers.count))
    }

    /// The spaces with a connection here (for the polling fallback).
    func connectedSpaces() -> [SyncSpaceID] { Array(spaces.keys) }

    /// Closes every subscription (the server is stopping).
    func finishAll() {
        for subscribers in spaces.values { for subscriber in subscribers.values { subscriber.continuation.finish() } }
        spaces.removeAll()
    }
}
