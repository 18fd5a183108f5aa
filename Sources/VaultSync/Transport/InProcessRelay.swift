/// A relay inside the process: the reference behaviour of a sync server
/// (ordering, deduplication, paging, acknowledgements), for tests and for
/// devices that sync within one app.
public actor InProcessRelay: SyncTransport {
    private struct Space {
        var log: [DeliveredChangeSet] = []
        var stored: [StoredKey: UInt64] = [:]
        var acknowledged: [SyncDeviceID: UInt64] = [:]
    }

    private struct StoredKey: Hashable {
        let device: SyncDeviceID
        let sequence: UInt64
    }

    private var spaces: [SyncSpaceID: Space] = [:]

    /// An empty relay.
    public init() {}

    /// Stores each change set once per (device, sequence), in arrival order.
    public func upload(_ changeSets: [SealedChangeSet], space: SyncSpaceID) -> [UploadReceipt] {
        var state = spaces[space] ?? Space()
        defer { spaces[space] = state }
        return changeSets.map { changeSet in
            let key = StoredKey(device: changeSet.device, sequence: changeSet.sequence)
            if let existing = state.stored[key] {
                return UploadReceipt(device: changeSet.device, sequence: changeSet.sequence, serverSequence: existing)
            }
            let serverSequence = UInt64(state.log.count + 1)
            state.log.append(DeliveredChangeSet(serverSequence: serverSequence, changeSet: changeSet))
            state.stored[key] = serverSequence
            return UploadReceipt(device: changeSet.device, sequence: changeSet.sequence, serverSequence: serverSequence)
        }
    }

    /// Up to `limit` change sets after `serverSequence`, in server order.
    public func receive(space: SyncSpaceID, after serverSequence: UInt64, limit: Int) -> [DeliveredChangeSet] {
        guard let log = spaces[space]?.log, serverSequence < UInt64(log.count), limit > 0 else { return [] }
        let start = Int(serverSequence)
        return Array(log[start..<min(log.count, start + limit)])
    }

    /// Records how far `device` holds the log durably (never moves back).
    public func acknowledge(space: SyncSpaceID, device: SyncDeviceID, through serverSequence: UInt64) {
        spaces[space, default: Space()].acknowledged[device] = max(spaces[space]?.acknowledged[device] ?? 0, serverSequence)
    }

    /// How far `device` acknowledged in `space`.
    public func acknowledged(space: SyncSpaceID, device: SyncDeviceID) -> UInt64 { spaces[space]?.acknowledged[device] ?? 0 }

    /// Every byte the relay holds for `space` (what a server would store: the blindness check reads it).
    public func storedBytes(space: SyncSpaceID) -> [UInt8] {
        (spaces[space]?.log ?? []).flatMap(\.changeSet.envelope)
    }
}
