import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

// MARK: - Recording local commits
//
// A synced vault's commit is told, inside its transaction, which rows it
// inserted, deleted and wrote (VaultCommitParticipant). The recorder turns
// that into operations by comparing each changed object's row with what its
// merge state says the row held before — the two agree after every commit,
// local or remote, because both are written in the same transactions:
//
//   - a deleted row whose object sync knows: `erase` (the next incarnation);
//   - an inserted row: `create` (the next incarnation if the key was deleted
//     before, the same one if it is present: creating an existing key
//     merges into it), then every property's value, as Realm's sync does;
//   - a written row: for each property VaultKit wrote, a `set` when the value
//     differs from the visible one; for a list, the insertions and removals
//     that turn the visible elements into the stored ones (a longest common
//     subsequence stays, so concurrent edits elsewhere in the list survive);
//     for a set and a map, one operation per member or key that changed.
//
// Links are written as their target's key and incarnation. Each operation is
// stamped by the hybrid logical clock, applied to the state at once (so later
// operations of the same commit build on it), and the commit's operations
// become the device's next change set in the outbox, in the same transaction.

/// Turns one local commit into a change set.
struct LocalRecorder {
    let store: SyncStateStore
    let classes: [String: SyncedClass]
    let device: SyncDeviceID
    var clock: HybridLogicalClock
    private(set) var operations: [SyncOperation] = []

    init(store: SyncStateStore, classes: [String: SyncedClass], device: SyncDeviceID, clock: HybridLogicalClock) {
        self.store = store
        self.classes = classes
        self.device = device
        self.clock = clock
    }

    private var vault: Vault { store.vault }

    /// Records what `rows` changed.
    mutating func record(_ rows: CommittedRows) throws {
        // Deletions first: links to deleted objects then read as nil.
        for (className, deleted) in rows.deleted.sorted(by: { $0.key < $1.key }) {
            guard let synced = classes[className] else { continue }
            for rowID in deleted.sorted() {
                guard let key = try store.key(className: className, row: rowID) else { continue }
                if let row = try vault.storedRow(className: className, rowID: rowID),
                   let pk = row[synced.primaryKey.name].flatMap(primaryKeyValue(synced)), pk == key.primaryKey { continue }
                try erase(key)
            }
        }
        // Creations before values: a new object may link to another new one.
        var created: [(SyncedClass, Int64, SyncObjectKey, [String: StoredPropertyValue])] = []
        var handled: [String: Set<Int64>] = [:]
        let inserted = rows.inserted.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.sorted()) }
        let untracked = try rows.written.sorted(by: { $0.key < $1.key }).map { className, written in
            (className, try written.keys.sorted().filter { try store.key(className: className, row: $0) == nil })
        }
        for (className, rowIDs) in inserted + untracked {
            guard let synced = classes[className] else { continue }
            for rowID in rowIDs where !(handled[className]?.contains(rowID) ?? false) {
                guard let row = try vault.storedRow(className: className, rowID: rowID),
                      let pk = row[synced.primaryKey.name].flatMap(primaryKeyValue(synced)) else { continue }
                let key = SyncObjectKey(className: className, primaryKey: pk)
                handled[className, default: []].insert(rowID)
                if try store.row(of: key) == rowID, try store.state(of: key).isPresent {
                    // Known already (a replaced row): its properties are compared below.
                    try recordValues(synced, key: key, row: row, only: nil)
                    continue
                }
                let state = try store.state(of: key)
                try apply(SyncOperation(object: reference(key, incarnation: state.isPresent ? state.incarnation : state.incarnation + 1),
                                        stamp: nextStamp(), change: .create), to: key, row: rowID)
                created.append((synced, rowID, key, row))
            }
        }
        for (synced, _, key, row) in created { try recordValues(synced, key: key, row: row, only: nil) }
        // Updates of known objects: the properties VaultKit wrote.
        for (className, written) in rows.written.sorted(by: { $0.key < $1.key }) {
            guard let synced = classes[className] else { continue }
            for (rowID, names) in written.sorted(by: { $0.key < $1.key }) where !(handled[className]?.contains(rowID) ?? false) {
                guard let key = try store.key(className: className, row: rowID),
                      let row = try vault.storedRow(className: className, rowID: rowID) else { continue }
                try recordValues(synced, key: key, row: row, only: names)
            }
        }
    }

    // MARK: Values

    private mutating func recordValues(_ synced: SyncedClass, key: SyncObjectKey, row: [String: StoredPropertyValue], only names: Set<String>?) throws {
        for property in synced.properties where names?.contains(property.name) ?? true {
            guard let stored = row[property.name] else { continue }
            let state = try store.state(of: key)
            switch (property.collectionKind, stored) {
            case (nil, .column(let value)):
                let new = try syncValue(value, property)
                let old = try state.properties[property.name].map { try visible($0.value) }
                if old != new { try edit(key, .set(property: property.name, value: new)) }
            case (.list?, .entries(let entries)):
                try recordList(key, property, state: state, new: entries.map { try syncValue($0.value, property) })
            case (.set?, .entries(let entries)):
                let collection = state.collections[property.name] ?? CollectionState()
                let new = Set(try entries.map { try syncValue($0.value, property) })
                var old = Set<SyncValue>()
                for (value, member) in collection.members where member.isPresent && isVisibleOrFalse(value) { old.insert(value) }
                for value in old.subtracting(new).sorted(by: { $0.canonicalText < $1.canonicalText }) {
                    try edit(key, .setMember(property: property.name, epoch: collection.epoch, value: value, present: false))
                }
                for value in new.subtracting(old).sorted(by: { $0.canonicalText < $1.canonicalText }) {
                    try edit(key, .setMember(property: property.name, epoch: collection.epoch, value: value, present: true))
                }
            case (.map?, .entries(let entries)):
                let collection = state.collections[property.name] ?? CollectionState()
                var new: [String: SyncValue] = [:]
                for entry in entries { new[entry.key ?? ""] = try syncValue(entry.value, property) }
                for (mapKey, entry) in collection.entries.sorted(by: { $0.key < $1.key }) where entry.value != nil && new[mapKey] == nil {
                    try edit(key, .mapEntry(property: property.name, epoch: collection.epoch, key: mapKey, value: nil))
                }
                for (mapKey, value) in new.sorted(by: { $0.key < $1.key }) {
                    let old = try collection.entries[mapKey]?.value.map { try visible($0) }
                    if old != value { try edit(key, .mapEntry(property: property.name, epoch: collection.epoch, key: mapKey, value: value)) }
                }
            default:
                continue
            }
        }
    }

    /// The operations that turn a list's visible elements into `new`.
    private mutating func recordList(_ key: SyncObjectKey, _ property: Property, state: ObjectState, new: [SyncValue]) throws {
        let collection = state.collections[property.name] ?? CollectionState()
        let visibleStamps = ListOrder.visibleElements(of: collection, isVisible: isVisibleOrFalse)
        let old = visibleStamps.map { collection.elements[$0]?.value.value ?? .null }
        guard old != new else { return }
        let kept = StoredListDiff.keptPairs(old: old, new: new)
        let keptOld = Set(kept.map(\.0))
        var slotOfNew = [SyncStamp?](repeating: nil, count: new.count)
        for (oldIndex, newIndex) in kept { slotOfNew[newIndex] = collection.elements[visibleStamps[oldIndex]]?.position }
        for (index, stamp) in visibleStamps.enumerated() where !keptOld.contains(index) {
            try edit(key, .listErase(property: property.name, epoch: collection.epoch, element: stamp))
        }
        // New elements from the back: each goes just before the slot of the element after it.
        for index in stride(from: new.count - 1, through: 0, by: -1) where slotOfNew[index] == nil {
            let before = index + 1 < new.count ? slotOfNew[index + 1] : nil
            let stamp = nextStamp()
            try edit(key, .listInsert(property: property.name, epoch: collection.epoch, before: before, value: new[index]), stamp: stamp)
            slotOfNew[index] = stamp
        }
    }

    // MARK: Helpers

    private func isVisibleOrFalse(_ value: SyncValue) -> Bool { (try? isVisible(value)) ?? false }

    private func isVisible(_ value: SyncValue) throws -> Bool {
        if case .link(let reference) = value { return try store.isLive(reference) }
        return true
    }

    private func visible(_ value: SyncValue) throws -> SyncValue { try isVisible(value) ? value : .null }

    private func primaryKeyValue(_ synced: SyncedClass) -> (StoredPropertyValue) -> SyncValue? {
        { stored in if case .column(let value) = stored { synced.primaryKeyValue(value) } else { nil } }
    }

    /// A stored value (a link as its target's row id) in sync form.
    private func syncValue(_ stored: DatabaseValue, _ property: Property) throws -> SyncValue {
        if let target = property.objectClassName {
            guard let rowID = stored.int64 else { return .null }
            guard let targetKey = try store.key(className: target, row: rowID), let reference = try store.reference(to: targetKey) else {
                throw SyncError.unsupportedModel("\(property.name) links to a \(target) that sync does not know; is \(target) a synced class?")
            }
            return .link(reference)
        }
        guard let value = SyncedClass.syncValue(stored, type: property.type) else {
            throw SyncError.unsupportedModel("\(property.name) holds a value that is not a \(property.type.rawValue)")
        }
        return value
    }

    private mutating func nextStamp() -> SyncStamp { SyncStamp(clock: clock.tick(), device: device) }

    private func reference(_ key: SyncObjectKey, incarnation: UInt64) -> SyncObjectReference {
        SyncObjectReference(className: key.className, primaryKey: key.primaryKey, incarnation: incarnation)
    }

    private mutating func erase(_ key: SyncObjectKey) throws {
        let state = try store.state(of: key)
        guard state.isPresent else { return }
        try apply(SyncOperation(object: reference(key, incarnation: state.incarnation + 1), stamp: nextStamp(), change: .erase), to: key, row: nil)
    }

    private mutating func edit(_ key: SyncObjectKey, _ change: SyncOperation.Change, stamp: SyncStamp? = nil) throws {
        let state = try store.state(of: key)
        let operation = SyncOperation(object: reference(key, incarnation: state.incarnation), stamp: stamp ?? nextStamp(), change: change)
        try apply(operation, to: key, row: try store.row(of: key))
    }

    private mutating func apply(_ operation: SyncOperation, to key: SyncObjectKey, row: Int64?) throws {
        var state = try store.state(of: key)
        MergeRules.apply(operation, to: &state)
        try store.update(key, state: state, row: row)
        operations.append(operation)
    }
}
