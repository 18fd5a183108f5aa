import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

// MARK: - Recording local commits
//
// Commits note which rows they inserted, deleted and wrote (CommitRecorder).
// The recorder turns the notes into operations by comparing each noted
// object's row with what its merge state says the row held when the last
// change set was made — states and rows are written in the same transactions,
// and every remote merge first records the local notes, so the difference is
// exactly what the noted commits did:
//
//   - a deleted row whose object sync knows: `erase` (the next incarnation);
//   - an inserted row: `create` (the next incarnation if the key was deleted
//     before, the same one if it is present: creating an existing key
//     merges into it), then every property's value, as Realm's sync does;
//   - a written row: for each field, a `set` when the value differs from the
//     visible one; for a list, the insertions, removals and replacements
//     that turn the visible elements into the stored ones (a longest common
//     subsequence stays, so concurrent edits elsewhere in the list survive;
//     between two elements that stay, removed and added ones pair up in order
//     as replacements, Realm's `list[i] = x`);
//     for a set and a map, one operation per member or key that changed.
//
// Links are written as their target's key and incarnation. Each operation is
// stamped (see CommitRecorder), applied to the state at once (so later
// operations build on it), and the operations become the device's next
// change set in the outbox, in the same transaction.

/// Turns one local commit into a change set.
struct LocalRecorder {
    let store: SyncStateStore
    let classes: [String: SyncedClass]
    let device: SyncDeviceID
    /// The greatest stamp clock issued or received so far (the hybrid logical clock).
    private(set) var latest: UInt64
    /// The clock reading of the last commit that touched a row (class, row id).
    let commitClock: (String, Int64) -> UInt64
    /// The reading the operations of the object being recorded start from.
    private var floor: UInt64 = 0
    private(set) var operations: [SyncOperation] = []

    init(store: SyncStateStore, classes: [String: SyncedClass], device: SyncDeviceID, latest: UInt64,
         commitClock: @escaping (String, Int64) -> UInt64) {
        self.store = store
        self.classes = classes
        self.device = device
        self.latest = latest
        self.commitClock = commitClock
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
                floor = commitClock(className, rowID)
                try erase(key)
            }
        }
        // Rows written, and the objects holding embedded objects that were written or added.
        var touched: [String: Set<Int64>] = rows.written
        var ownerClocks: [String: [Int64: UInt64]] = [:]
        for (className, rowIDs) in rows.inserted.merging(rows.written, uniquingKeysWith: { $0.union($1) })
            where classes[className] == nil {
            for rowID in rowIDs {
                guard let owner = try topLevelOwner(ofEmbedded: className, rowID: rowID) else { continue }
                touched[owner.className, default: []].insert(owner.rowID)
                ownerClocks[owner.className, default: [:]][owner.rowID] = max(ownerClocks[owner.className]?[owner.rowID] ?? 0, commitClock(className, rowID))
            }
        }
        let commitClock = self.commitClock
        let clockOf = { (className: String, rowID: Int64) in max(commitClock(className, rowID), ownerClocks[className]?[rowID] ?? 0) }
        // Creations before values: a new object may link to another new one.
        var created: [(SyncedClass, Int64, SyncObjectKey, [String: StoredPropertyValue])] = []
        var handled: [String: Set<Int64>] = [:]
        let inserted = rows.inserted.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.sorted()) }
        let untracked = try touched.sorted(by: { $0.key < $1.key }).map { className, rowIDs in
            (className, try rowIDs.sorted().filter { try store.key(className: className, row: $0) == nil })
        }
        for (className, rowIDs) in inserted + untracked {
            guard let synced = classes[className] else { continue }
            for rowID in rowIDs where !(handled[className]?.contains(rowID) ?? false) {
                guard let (values, _, primaryKey) = try synced.read(vault, rowID: rowID), let pk = primaryKey else { continue }
                let key = SyncObjectKey(className: className, primaryKey: pk)
                handled[className, default: []].insert(rowID)
                let state = try store.state(of: key)
                if try store.row(of: key) == rowID, state.isPresent {
                    // Known already (a replaced row): its fields are compared below.
                    created.append((synced, rowID, key, values))
                    continue
                }
                floor = clockOf(className, rowID)
                try apply(SyncOperation(object: reference(key, incarnation: state.isPresent ? state.incarnation : state.incarnation + 1),
                                        stamp: nextStamp(), change: .create), to: key, row: rowID)
                created.append((synced, rowID, key, values))
            }
        }
        for (synced, rowID, key, values) in created {
            floor = clockOf(synced.className, rowID)
            try recordValues(synced, key: key, values: values)
        }
        // Updates of known objects: every field that differs from its state.
        for (className, rowIDs) in touched.sorted(by: { $0.key < $1.key }) {
            guard let synced = classes[className] else { continue }
            for rowID in rowIDs.sorted() where !(handled[className]?.contains(rowID) ?? false) {
                guard let key = try store.key(className: className, row: rowID),
                      let (values, _, _) = try synced.read(vault, rowID: rowID) else { continue }
                floor = clockOf(className, rowID)
                try recordValues(synced, key: key, values: values)
            }
        }
    }

    /// The top-level object holding an embedded object (through one or more embedded objects).
    private func topLevelOwner(ofEmbedded className: String, rowID: Int64) throws -> (className: String, rowID: Int64)? {
        var current = (className: className, rowID: rowID)
        for _ in 0..<9 {
            guard let owner = try vault.storedOwner(ofEmbedded: current.className, rowID: current.rowID) else { return nil }
            if classes[owner.className] != nil { return owner }
            current = owner
        }
        return nil
    }

    // MARK: Values

    private mutating func recordValues(_ synced: SyncedClass, key: SyncObjectKey, values: [String: StoredPropertyValue]) throws {
        for field in synced.fields {
            guard let stored = values[field.path] else { continue }
            let state = try store.state(of: key)
            let property = field.property
            let path = field.path
            switch (property.collectionKind, stored) {
            case (nil, .column(let value)):
                let new = field.isEmbeddedMarker ? (value == .null ? .null : .bool(true)) : try syncValue(value, property)
                let old = try state.properties[path].map { try visible($0.value, of: property) }
                if old != new { try edit(key, .set(property: path, value: new)) }
            case (.list?, .entries(let entries)):
                try recordList(key, field, state: state, new: entries.map { try elementValue($0.value, field) })
            case (.set?, .entries(let entries)):
                let collection = state.collections[path] ?? CollectionState()
                let new = Set(try entries.map { try syncValue($0.value, property) })
                var old = Set<SyncValue>()
                for (value, member) in collection.members where member.isPresent && isVisibleOrFalse(value) { old.insert(value) }
                for value in old.subtracting(new).sorted(by: { $0.canonicalText < $1.canonicalText }) {
                    try edit(key, .setMember(property: path, epoch: collection.epoch, value: value, present: false))
                }
                for value in new.subtracting(old).sorted(by: { $0.canonicalText < $1.canonicalText }) {
                    try edit(key, .setMember(property: path, epoch: collection.epoch, value: value, present: true))
                }
            case (.map?, .entries(let entries)):
                let collection = state.collections[path] ?? CollectionState()
                var new: [String: SyncValue] = [:]
                for entry in entries { new[entry.key ?? ""] = try elementValue(entry.value, field) }
                for (mapKey, entry) in collection.entries.sorted(by: { $0.key < $1.key }) where entry.value != nil && new[mapKey] == nil {
                    try edit(key, .mapEntry(property: path, epoch: collection.epoch, key: mapKey, value: nil))
                }
                for (mapKey, value) in new.sorted(by: { $0.key < $1.key }) {
                    let old = try collection.entries[mapKey]?.value.map { try visibleElement($0, field) }
                    if old != value { try edit(key, .mapEntry(property: path, epoch: collection.epoch, key: mapKey, value: value)) }
                }
            default:
                continue
            }
        }
    }

    /// The operations that turn a list's visible elements into `new`.
    private mutating func recordList(_ key: SyncObjectKey, _ field: SyncField, state: ObjectState, new: [SyncValue]) throws {
        let path = field.path
        let collection = state.collections[path] ?? CollectionState()
        let visibleStamps = ListOrder.visibleElements(of: collection, isVisible: isVisibleOrFalse)
        let old = try visibleStamps.map { try visibleElement(collection.elements[$0]?.value.value ?? .null, field) }
        guard old != new else { return }
        let kept = StoredListDiff.keptPairs(old: old, new: new)
        var keptOld = Set(kept.map(\.0))
        var slotOfNew = [SyncStamp?](repeating: nil, count: new.count)
        for (oldIndex, newIndex) in kept { slotOfNew[newIndex] = collection.elements[visibleStamps[oldIndex]]?.position }
        // Between two kept elements, old and new elements pair up in order as replacements
        // (`list[i] = x`: the element keeps its identity and place, its value is set).
        for (oldIndex, newIndex) in StoredListDiff.replacements(kept: kept, oldCount: old.count, newCount: new.count) {
            let element = visibleStamps[oldIndex]
            try edit(key, .listSet(property: path, epoch: collection.epoch, element: element, value: new[newIndex]))
            keptOld.insert(oldIndex)
            slotOfNew[newIndex] = collection.elements[element]?.position
        }
        for (index, stamp) in visibleStamps.enumerated() where !keptOld.contains(index) {
            try edit(key, .listErase(property: path, epoch: collection.epoch, element: stamp))
        }
        // New elements from the back: each goes just before the slot of the element after it.
        for index in stride(from: new.count - 1, through: 0, by: -1) where slotOfNew[index] == nil {
            let before = index + 1 < new.count ? slotOfNew[index + 1] : nil
            let stamp = nextStamp()
            try edit(key, .listInsert(property: path, epoch: collection.epoch, before: before, value: new[index]), stamp: stamp)
            slotOfNew[index] = stamp
        }
    }

    // MARK: Helpers

    private func isVisibleOrFalse(_ value: SyncValue) -> Bool { (try? isVisible(value)) ?? false }

    /// A collection element in sync form: an embedded object as its snapshot (EmbeddedElements.swift).
    private func elementValue(_ stored: DatabaseValue, _ field: SyncField) throws -> SyncValue {
        guard let coding = field.embeddedElements else { return try syncValue(stored, field.property) }
        guard let rowID = stored.int64 else { return .null }
        return try coding.snapshot(vault, rowID: rowID) { property, value in try syncValue(value, property) }
    }

    /// What an element shows: links to deleted objects (in a snapshot too) as nil.
    private func visibleElement(_ value: SyncValue, _ field: SyncField) throws -> SyncValue {
        guard let coding = field.embeddedElements, value != .null else { return try visible(value, of: field.property) }
        return try coding.visible(value) { (try? store.isLive($0)) ?? false }
    }

    private func isVisible(_ value: SyncValue) throws -> Bool {
        if case .link(let reference) = value { return try store.isLive(reference) }
        return true
    }

    private func visible(_ value: SyncValue) throws -> SyncValue { try isVisible(value) ? value : .null }

    /// What a value of `property` shows: for a mixed one, nested links to deleted objects as nil too.
    private func visible(_ value: SyncValue, of property: Property) throws -> SyncValue {
        guard property.type == .mixed else { return try visible(value) }
        return try MixedSyncCoding.visible(value) { (try? store.isLive($0)) ?? false }
    }

    private func primaryKeyValue(_ synced: SyncedClass) -> (StoredPropertyValue) -> SyncValue? {
        { stored in if case .column(let value) = stored { synced.primaryKeyValue(value) } else { nil } }
    }

    /// A link to an object sync must know (a synced class, recorded before the values that link to it).
    private func knownLink(className: String, row rowID: Int64, from property: Property) throws -> SyncValue {
        guard let link = try store.link(className: className, row: rowID) else {
            throw SyncError.unsupportedModel("\(property.name) links to a \(className) that sync does not know; is \(className) a synced class?")
        }
        return link
    }

    /// A stored value (a link as its target's row id) in sync form.
    private func syncValue(_ stored: DatabaseValue, _ property: Property) throws -> SyncValue {
        if property.type == .mixed {
            return try MixedSyncCoding.syncValue(try Vault.storedMixed(stored)) { className, rowID in
                try knownLink(className: className, row: rowID, from: property)
            }
        }
        if let target = property.objectClassName {
            guard let rowID = stored.int64 else { return .null }
            return try knownLink(className: target, row: rowID, from: property)
        }
        guard let value = SyncedClass.syncValue(stored, type: property.type) else {
            throw SyncError.unsupportedModel("\(property.name) holds a value that is not a \(property.type.rawValue)")
        }
        return value
    }

    /// A stamp later than every one the device knows, and no earlier than the commit that made the change.
    private mutating func nextStamp() -> SyncStamp {
        latest = max(latest &+ 1, floor)
        return SyncStamp(clock: latest, device: device)
    }

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
