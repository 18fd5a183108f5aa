import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

// MARK: - Applying remote change sets
//
// Inside one write transaction: every operation is checked against this
// device's models, then merged into its object's state (MergeRules); when
// all are merged, each touched object's row is brought to what its state
// now shows, through VaultKit's own write paths, so observers get the same
// notifications as for a local write:
//
//   1. rows whose object was deleted, or deleted and created again (a new
//      incarnation), are deleted — links to them become nil, collections drop them;
//   2. rows are inserted for objects that are present without one;
//   3. each present object's properties are written where they differ:
//      columns set, lists rewritten keeping the entries that stay, set
//      members and map keys added and removed one by one.
//
// A property or class this device does not have (a newer app version's
// additive change) stays in the merge state only; a class it learns later
// (a newer app version, or a vault that registers classes as the app first
// uses them) gets the rows of its objects at the next merge. A value of another type,
// or an operation of another kind than the local property (a breaking
// change), throws SyncError.schemaMismatch before anything is written, and
// the transaction rolls back. Asymmetric classes are upload-only: received
// operations on them are ignored, as Realm's devices never download them.

/// Merges remote change sets into a vault in one write transaction.
struct RemoteApplier {
    let store: SyncStateStore
    let classes: [String: SyncedClass]
    /// Each touched object's incarnation and row before this transaction.
    private var before: [SyncObjectKey: (incarnation: UInt64, row: Int64?)] = [:]

    init(store: SyncStateStore, classes: [String: SyncedClass]) {
        self.store = store
        self.classes = classes
    }

    private var vault: Vault { store.vault }

    /// Merges the operations of `changeSet` into the states.
    mutating func merge(_ changeSet: ChangeSet) throws {
        for operation in changeSet.operations {
            let synced = classes[operation.object.className]
            if let synced {
                if synced.isAsymmetric { continue }
                try check(operation, against: synced)
            }
            let key = operation.object.key
            if synced == nil { unknownClasses.insert(key.className) }
            var state = try store.state(of: key)
            let row = try store.row(of: key)
            if before[key] == nil { before[key] = (state.incarnation, row) }
            MergeRules.apply(operation, to: &state)
            try store.update(key, state: state, row: row)
        }
    }

    /// Classes named by merged operations that this vault does not have (yet).
    private var unknownClasses: Set<String> = []

    /// Objects of classes this vault did not have when they were merged (recorded
    /// under `unknownClass:<name>`) and has now: rows are made for them by ``writeRows()``.
    /// Classes still unknown after this merge are recorded for a later one.
    mutating func adoptObjectsOfNewlyKnownClasses() throws {
        for name in try store.tables.unknownClasses() where classes[name] != nil {
            for stored in try store.tables.objectStates(className: name, withRows: false) {
                let (key, state) = try ObjectStateCoding.decode(stored)
                if state.isPresent, before[key] == nil { before[key] = (state.incarnation, nil) }
            }
            try store.tables.removeUnknownClass(name)
        }
    }

    /// Records the classes merged operations named that this vault does not have.
    func recordUnknownClasses() throws {
        for name in unknownClasses.sorted() {
            try store.tables.addUnknownClass(name)
        }
    }

    /// Brings every touched object's row to its state (see the essay above).
    mutating func writeRows() throws {
        let touched = before.keys.filter { classes[$0.className] != nil }
            .sorted { ($0.className, $0.primaryKey.canonicalText) < ($1.className, $1.primaryKey.canonicalText) }
        for key in touched {
            guard let row = before[key]?.row, let previous = before[key]?.incarnation else { continue }
            let state = try store.state(of: key)
            if !state.isPresent || state.incarnation != previous {
                try vault.storedDelete(className: key.className, rowID: row)
                try store.update(key, state: state, row: nil)
            }
        }
        for key in touched {
            guard let synced = classes[key.className] else { continue }
            let state = try store.state(of: key)
            guard state.isPresent, try store.row(of: key) == nil else { continue }
            let pk = try synced.storedPrimaryKey(key.primaryKey)
            // A row with the key that sync did not know (made before sync was on) is taken over.
            let rowID = try vault.storedRowID(className: key.className, primaryKey: pk) ?? vault.storedInsert(className: key.className, primaryKey: pk)
            try store.update(key, state: state, row: rowID)
        }
        for key in touched {
            guard let synced = classes[key.className], let rowID = try store.row(of: key) else { continue }
            try writeValues(synced, rowID: rowID, state: try store.state(of: key))
        }
    }

    // MARK: Writing one object

    private func writeValues(_ synced: SyncedClass, rowID: Int64, state: ObjectState) throws {
        guard var (values, owners, _) = try synced.read(vault, rowID: rowID) else { return }
        for field in synced.fields {
            // The row that holds the field: the object's, or an embedded object's (added or removed by its marker).
            guard let owner = owners[field.ownerPath] else { continue }
            let (className, ownerRow, property, path) = (owner.className, owner.rowID, field.property, field.path)
            let name = property.name
            if field.isEmbeddedMarker {
                guard let register = state.properties[path], let target = property.objectClassName else { continue }
                let present = values[path] == .column(.integer(1))
                if register.value == .null, present {
                    try vault.storedSet(className: className, rowID: ownerRow, property: name, value: .null)
                    owners[path] = nil
                } else if register.value != .null, !present {
                    let embedded = try vault.storedInsertEmbedded(className: target)
                    try vault.storedSet(className: className, rowID: ownerRow, property: name, value: .integer(embedded))
                    owners[path] = (target, embedded)
                    // A new embedded object: its fields hold their zero values until written below.
                    if let row = try vault.storedRow(className: target, rowID: embedded) {
                        for nested in synced.fields where nested.ownerPath == path { values[nested.path] = row[nested.property.name] }
                    }
                }
                continue
            }
            if let coding = field.embeddedElements {
                try writeEmbeddedElements(coding, field: field, owner: owner, current: entries(values[path]), state: state)
                continue
            }
            switch property.collectionKind {
            case nil:
                guard let register = state.properties[path] else { continue }
                let desired = try stored(register.value, property)
                if values[path] != .column(desired) { try vault.storedSet(className: className, rowID: ownerRow, property: name, value: desired) }
            case .list?:
                let collection = state.collections[path] ?? CollectionState()
                let visible = ListOrder.visibleElements(of: collection, isVisible: isVisible)
                let desired = try visible.compactMap { collection.elements[$0]?.value.value }.map { try stored($0, property) }
                try vault.storedRewriteList(className: className, rowID: ownerRow, property: name, elements: desired)
            case .set?:
                let collection = state.collections[path] ?? CollectionState()
                var desired = Set<DatabaseValue>()
                for (value, member) in collection.members where member.isPresent && isVisible(value) { desired.insert(try stored(value, property)) }
                let current = Set(entries(values[path]).map(\.value))
                try vault.storedUpdateSet(className: className, rowID: ownerRow, property: name,
                                          adding: desired.subtracting(current).sorted(by: order), removing: current.subtracting(desired).sorted(by: order))
            case .map?:
                let collection = state.collections[path] ?? CollectionState()
                var desired: [String: DatabaseValue] = [:]
                for (mapKey, entry) in collection.entries { if let value = entry.value { desired[mapKey] = try stored(value, property) } }
                var current: [String: DatabaseValue] = [:]
                for entry in entries(values[path]) { current[entry.key ?? ""] = entry.value }
                let setting = desired.filter { current[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { StoredEntry(key: $0.key, value: $0.value) }
                let removing = current.keys.filter { desired[$0] == nil }.sorted()
                try vault.storedUpdateMap(className: className, rowID: ownerRow, property: name, setting: setting, removing: removing)
            }
        }
    }

    /// A list or map of embedded objects brought to its state: objects that stay keep their rows,
    /// replaced ones are written in place, new ones are inserted (EmbeddedElements.swift).
    private func writeEmbeddedElements(_ coding: EmbeddedElementCoding, field: SyncField, owner: (className: String, rowID: Int64),
                                       current: [StoredEntry], state: ObjectState) throws {
        let collection = state.collections[field.path] ?? CollectionState()
        let isLive = { (reference: SyncObjectReference) in (try? store.isLive(reference)) ?? false }
        let name = field.property.name
        if field.property.collectionKind == .map {
            var desired: [String: SyncValue] = [:]
            for (mapKey, entry) in collection.entries { if let value = entry.value { desired[mapKey] = try coding.visible(value, isLive: isLive) } }
            var setting: [StoredEntry] = []
            for entry in current {
                let mapKey = entry.key ?? ""
                guard let wanted = desired.removeValue(forKey: mapKey), let row = entry.value.int64 else { continue }
                if try coding.snapshot(vault, rowID: row, link: store.linkValue) != wanted { try coding.write(wanted, to: vault, rowID: row, stored: stored) }
            }
            for (mapKey, wanted) in desired.sorted(by: { $0.key < $1.key }) {
                let row = try vault.storedInsertEmbedded(className: coding.className)
                try coding.write(wanted, to: vault, rowID: row, stored: stored)
                setting.append(StoredEntry(key: mapKey, value: .integer(row)))
            }
            let kept = Set(collection.entries.compactMap { $0.value.value == nil ? nil : $0.key })
            let removing = current.compactMap(\.key).filter { !kept.contains($0) }.sorted()
            try vault.storedUpdateMap(className: owner.className, rowID: owner.rowID, property: name, setting: setting, removing: removing)
            return
        }
        let desired = try ListOrder.visibleElements(of: collection).compactMap { collection.elements[$0]?.value.value }
            .map { try coding.visible($0, isLive: isLive) }
        let rows = current.compactMap { $0.value.int64 }
        let snapshots = try rows.map { try coding.snapshot(vault, rowID: $0, link: store.linkValue) }
        guard snapshots != desired else { return }
        var rowOfNew = [Int64?](repeating: nil, count: desired.count)
        let kept = StoredListDiff.keptPairs(old: snapshots, new: desired)
        for (oldIndex, newIndex) in kept { rowOfNew[newIndex] = rows[oldIndex] }
        // Between two kept objects, old and new ones pair up: written in place.
        for (oldIndex, newIndex) in StoredListDiff.replacements(kept: kept, oldCount: rows.count, newCount: desired.count) {
            try coding.write(desired[newIndex], to: vault, rowID: rows[oldIndex], stored: stored)
            rowOfNew[newIndex] = rows[oldIndex]
        }
        var elements: [DatabaseValue] = []
        for (index, row) in rowOfNew.enumerated() {
            if let row {
                elements.append(.integer(row))
            } else {
                let inserted = try vault.storedInsertEmbedded(className: coding.className)
                try coding.write(desired[index], to: vault, rowID: inserted, stored: stored)
                elements.append(.integer(inserted))
            }
        }
        try vault.storedRewriteList(className: owner.className, rowID: owner.rowID, property: name, elements: elements)
    }

    private func entries(_ value: StoredPropertyValue?) -> [StoredEntry] {
        if case .entries(let entries)? = value { return entries }
        return []
    }

    private func order(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool { lhs.description < rhs.description }

    private func isVisible(_ value: SyncValue) -> Bool {
        if case .link(let reference) = value { return (try? store.isLive(reference)) ?? false }
        return true
    }

    /// A visible value in stored form: a live link as its target's row id, a dead one as null.
    private func stored(_ value: SyncValue, _ property: Property) throws -> DatabaseValue {
        if property.type == .mixed {
            return Vault.storedMixedValue(try MixedSyncCoding.mixedValue(value) { reference in
                try store.isLive(reference) ? try store.row(of: reference.key) : nil
            })
        }
        if case .link(let reference) = value {
            guard try store.isLive(reference), let row = try store.row(of: reference.key) else { return .null }
            return .integer(row)
        }
        guard let stored = SyncedClass.storedValue(value, type: property.type, optional: property.isOptional) else {
            throw SyncError.schemaMismatch("\(property.name) is a \(property.type.rawValue) here, but a change set holds \(value.kindName) for it")
        }
        return stored
    }

    // MARK: Schema checks

    private func check(_ operation: SyncOperation, against synced: SyncedClass) throws {
        _ = try synced.storedPrimaryKey(operation.object.primaryKey)
        let name: String
        let kind: CollectionKind?
        var values: [SyncValue] = []
        switch operation.change {
        case .create, .erase: return
        case .set(let property, let value): (name, kind, values) = (property, nil, [value])
        case .listInsert(let property, _, _, let value), .listSet(let property, _, _, let value): (name, kind, values) = (property, .list, [value])
        case .listMove(let property, _, _, _), .listErase(let property, _, _): (name, kind) = (property, .list)
        case .setMember(let property, _, let value, _): (name, kind, values) = (property, .set, [value])
        case .mapEntry(let property, _, _, let value): (name, kind, values) = (property, .map, value.map { [$0] } ?? [])
        case .clear(let property, _):
            guard let local = synced.fieldsByPath[property]?.property else { return }
            guard local.collectionKind != nil else { throw mismatch(synced, local, "cleared as a collection") }
            return
        }
        guard let field = synced.fieldsByPath[name] else { return }   // an additive change: kept in the state only
        let local = field.property
        if let coding = field.embeddedElements {
            guard local.collectionKind == kind else { throw mismatch(synced, local, "written as \(kind.map { "a \($0.rawValue)" } ?? "a single value")") }
            for value in values { _ = try coding.values(of: value) }
            return
        }
        if field.isEmbeddedMarker {
            guard kind == nil, values.allSatisfy({ $0 == .null || $0 == .bool(true) }) else { throw mismatch(synced, local, "written as something else than an embedded object") }
            return
        }
        guard local.collectionKind == kind else {
            throw mismatch(synced, local, "written as \(kind.map { "a \($0.rawValue)" } ?? "a single value")")
        }
        for value in values {
            if local.type == .mixed {
                _ = try MixedSyncCoding.mixedValue(value) { _ in nil }   // any kind fits; it must decode
                continue
            }
            if case .link(let reference) = value {
                guard local.objectClassName == reference.className else { throw mismatch(synced, local, "given \(value.kindName)") }
            } else if local.objectClassName != nil && value != .null {
                throw mismatch(synced, local, "given \(value.kindName) instead of a link")
            } else if local.objectClassName == nil,
                      SyncedClass.storedValue(value, type: local.type, optional: local.isOptional) == nil {
                throw mismatch(synced, local, "given \(value.kindName)")
            }
        }
    }

    private func mismatch(_ synced: SyncedClass, _ property: Property, _ what: String) -> SyncError {
        let kind = property.collectionKind.map { "\($0.rawValue) of \(property.objectClassName ?? property.type.rawValue)" }
            ?? (property.objectClassName.map { "link to \($0)" } ?? "\(property.isOptional ? "optional " : "")\(property.type.rawValue)")
        return .schemaMismatch("\(synced.className).\(property.name) is a \(kind) here, but a change set has it \(what)")
    }
}
