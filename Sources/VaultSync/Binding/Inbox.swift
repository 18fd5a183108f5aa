import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// Received change sets on their way in: kept in `_vaultkit_sync_inbox`
/// until their predecessors are applied, then handed out in causal order —
/// each exactly once, since the applied versions are written in the same
/// transaction as what the change sets changed.
struct Inbox {
    let store: SyncStateStore
    let device: SyncDeviceID
    private(set) var applied: [SyncDeviceID: UInt64]
    private var waiting: [ChangeSetKey: ChangeSet] = [:]
    private var stored: Set<ChangeSetKey> = []
    private var advanced: Set<SyncDeviceID> = []

    private struct ChangeSetKey: Hashable, Comparable {
        let device: SyncDeviceID
        let sequence: UInt64
        static func < (lhs: ChangeSetKey, rhs: ChangeSetKey) -> Bool { (lhs.device, lhs.sequence) < (rhs.device, rhs.sequence) }
    }

    init(store: SyncStateStore, device: SyncDeviceID, applied: [SyncDeviceID: UInt64]) {
        self.store = store
        self.device = device
        self.applied = applied
    }

    /// Reads the change sets kept from earlier deliveries.
    mutating func load() throws {
        for encoded in try store.tables.inbox() {
            let changeSet = try ChangeSetCodec.decode(encoded)
            let key = ChangeSetKey(device: changeSet.author, sequence: changeSet.sequence)
            stored.insert(key)
            add(changeSet)
        }
    }

    /// Takes in a delivery: ignored if it is this device's own, or applied already.
    mutating func add(_ changeSet: ChangeSet) {
        guard changeSet.author != device, changeSet.sequence > (applied[changeSet.author] ?? 0) else { return }
        waiting[ChangeSetKey(device: changeSet.author, sequence: changeSet.sequence)] = changeSet
    }

    /// Every waiting change set that can be applied now, in an order that respects causality.
    mutating func takeReady() -> [ChangeSet] {
        var ready: [ChangeSet] = []
        var progress = true
        while progress {
            progress = false
            for key in waiting.keys.sorted() {
                guard let changeSet = waiting[key], isReady(changeSet) else { continue }
                ready.append(changeSet)
                waiting[key] = nil
                applied[changeSet.author] = changeSet.sequence
                advanced.insert(changeSet.author)
                progress = true
            }
        }
        return ready
    }

    /// Writes the applied versions, drops applied change sets from the table and keeps the rest.
    func save() throws {
        for device in advanced.sorted() {
            guard let sequence = applied[device] else { continue }
            try store.setApplied(device, sequence)
            try store.tables.removeFromInbox(device: device, through: sequence)
        }
        for (key, changeSet) in waiting.sorted(by: { $0.key < $1.key }) where !stored.contains(key) {
            let bytes = try ChangeSetCodec.encode(changeSet)
            try store.tables.addToInbox(device: key.device, sequence: key.sequence, changeSet: bytes)
        }
    }

    private func isReady(_ changeSet: ChangeSet) -> Bool {
        guard (applied[changeSet.author] ?? 0) == changeSet.sequence - 1 else { return false }
        return changeSet.dependencies.allSatisfy { dependency, sequence in
            dependency == device || (applied[dependency] ?? 0) >= sequence
        }
    }
}
