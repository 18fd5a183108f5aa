import Foundation
import VaultCore

/// One registered observation of a session: what it observes, the version it
/// delivered last, and how to compute and deliver the next change.
///
/// Observations are delivered on their session's thread (see
/// Vault+Notifications), at the version the session reads at that moment, so
/// the indices they report match what the observer reads.
class Observation {
    /// False once the token is invalidated (from any thread) or the object was
    /// deleted: never delivered again. Behind a lock, since tokens are `Sendable`.
    var isActive: Bool {
        get { active.withLock { $0 } }
        set { active.withLock { $0 = newValue } }
    }
    private let active = Locked(true)
    /// The commit sequence of the last delivery: the baseline of the next.
    var deliveredSequence: UInt64 = 0
    /// The token that ends it (for `write(withoutNotifying:)`).
    weak var token: NotificationToken?

    /// Delivers what changed between `deliveredSequence` and the vault's current
    /// version. `changes` is the merged capture of that range, `nil` when a
    /// commit in it was not captured in this process.
    func deliver(in vault: Vault, changes: TransactionChanges?) {}

    /// Takes the current version as the baseline without delivering.
    func rebaseline(in vault: Vault) {}
}

/// The property indexes a key-path filter lets through (`nil`: every property).
struct PropertyFilter {
    let indexes: Set<Int>?
    let linkColumns: Set<Int>

    /// Realm's `keyPaths:`: names of the observed class's properties; a path
    /// through a link (`"dog.name"`) filters on its first step. An unknown
    /// property is a programmer error and traps, as Realm's invalid key paths raise.
    init(keyPaths: [String]?, schema: ObjectSchema) {
        linkColumns = Set(schema.properties.indices.filter { schema.properties[$0].objectClassName != nil && schema.properties[$0].isColumn })
        guard let keyPaths else {
            indexes = nil
            return
        }
        indexes = Set(keyPaths.map { keyPath in
            let first = String(keyPath.split(separator: ".", maxSplits: 1).first ?? "")
            guard let index = schema.index(ofProperty: first) else {
                preconditionFailure("Invalid key path '\(keyPath)' for \(schema.className): \(schema.className) has no property '\(first)'")
            }
            return index
        })
    }

    /// Whether what was written to a row passes the filter.
    func passes(_ written: WrittenProperties) -> Bool {
        guard let indexes else { return true }
        if !written.indexes.isDisjoint(with: indexes) { return true }
        return written.linkColumns && !linkColumns.isDisjoint(with: indexes)
    }

    /// The per-row test for one table's changes: whether a row was written in a way the filter passes.
    func test(_ changes: TableChanges?) -> (Int64) -> Bool {
        guard let written = changes?.written, !written.isEmpty else { return { _ in false } }
        return { rowID in written[rowID].map(passes) ?? false }
    }

    /// The rows of one table's changes written in a way the filter passes.
    func passingRows(_ changes: TableChanges?) -> Set<Int64> {
        guard let written = changes?.written else { return [] }
        return Set(written.lazy.filter { passes($0.value) }.map(\.key))
    }

    /// The written properties that pass the filter.
    func filter(_ properties: Set<Int>) -> Set<Int> {
        guard let indexes else { return properties }
        return properties.intersection(indexes)
    }
}

/// Observes a collection through the row ids of its elements.
final class CollectionObservation<Collection>: Observation {
    /// What a delivery hands on: the first one (`old` nil), or the ids before
    /// and after with the test of which elements were written.
    typealias Sink = (_ old: [Int64]?, _ new: [Int64], _ modified: ModifiedElements) -> Void

    /// The element ids at the vault's current version, in order.
    private let currentIDs: () -> [Int64]
    /// Given a range's changes, the test of whether element `id` was written
    /// (subject to the key-path filter): built once per delivery, asked per element.
    private let modificationTest: (TransactionChanges) -> ModifiedElements
    private let sink: Sink
    /// Whether a range's changes leave the ids as delivered (so the query need not re-run).
    private let idsUnchanged: (TransactionChanges) -> Bool
    private var deliveredIDs: [Int64]?

    /// An observation that calls `block` with Realm's changes.
    convenience init(collection: Collection, currentIDs: @escaping () -> [Int64],
                     modificationTest: @escaping (TransactionChanges) -> ModifiedElements,
                     idsUnchanged: @escaping (TransactionChanges) -> Bool = { _ in false },
                     block: @escaping (VaultCollectionChange<Collection>) -> Void) {
        self.init(currentIDs: currentIDs, modificationTest: modificationTest, idsUnchanged: idsUnchanged) { old, new, modified in
            guard let old else { return block(.initial(collection)) }
            let diff = CollectionDiff(old: old, new: new, modified: modified)
            guard !diff.isEmpty else { return }
            block(.update(collection, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications))
        }
    }

    init(currentIDs: @escaping () -> [Int64], modificationTest: @escaping (TransactionChanges) -> ModifiedElements,
         idsUnchanged: @escaping (TransactionChanges) -> Bool = { _ in false }, sink: @escaping Sink) {
        self.currentIDs = currentIDs
        self.modificationTest = modificationTest
        self.idsUnchanged = idsUnchanged
        self.sink = sink
    }

    override func deliver(in vault: Vault, changes: TransactionChanges?) {
        let sequence = vault.commitSequence
        guard let old = deliveredIDs else {
            let ids = currentIDs()
            deliveredIDs = ids
            deliveredSequence = sequence
            sink(nil, ids, .none)
            return
        }
        guard sequence != deliveredSequence else { return }
        let new = changes.map(idsUnchanged) == true ? old : currentIDs()
        deliveredIDs = new
        deliveredSequence = sequence
        sink(old, new, changes.map(modificationTest) ?? .none)
    }

    override func rebaseline(in vault: Vault) {
        guard deliveredIDs != nil else { return }
        deliveredIDs = currentIDs()
        deliveredSequence = vault.commitSequence
    }
}

/// Observes one object's properties (no initial delivery, as in Realm).
final class ObjectObservation<T: ObjectBase>: Observation {
    private let object: T
    private let schema: ObjectSchema
    private let rowID: Int64
    private let filter: PropertyFilter
    /// Key paths through links (`"dog.name"`): a write at their end is a change of their first property.
    private let linkKeyPaths: [String]
    private let block: (ObjectChange<T>) -> Void
    /// The column values at the last delivery (per property; collections hold `.null`).
    private var deliveredValues: [DatabaseValue]

    init(object: T, manager: ManagedObject, keyPaths: [String]?, block: @escaping (ObjectChange<T>) -> Void) {
        self.object = object
        self.schema = manager.schema
        self.rowID = manager.rowID
        self.filter = PropertyFilter(keyPaths: keyPaths, schema: manager.schema)
        self.linkKeyPaths = (keyPaths ?? []).filter { $0.contains(".") }
        self.block = block
        self.deliveredValues = []
    }

    /// Reads the row now: the values later changes are compared with — or
    /// takes `baseline`'s, when it is older than the vault's version (the
    /// changes since then are delivered at the next delivery point).
    func start(in vault: Vault, baseline: ObjectObservationBaseline? = nil) {
        if let baseline, baseline.sequence < vault.commitSequence {
            deliveredSequence = baseline.sequence
            deliveredValues = baseline.values
            return
        }
        deliveredSequence = vault.commitSequence
        if case .success(let values?) = vault.loadRow(schema, rowID: rowID) { deliveredValues = values }
    }

    override func deliver(in vault: Vault, changes: TransactionChanges?) {
        let sequence = vault.commitSequence
        guard sequence != deliveredSequence else { return }
        deliveredSequence = sequence
        let row: [DatabaseValue]
        switch vault.loadRow(schema, rowID: rowID) {
        case .success(let values?): row = values
        case .success(nil):
            isActive = false
            block(.deleted)
            return
        case .failure(let error):
            isActive = false
            block(.error(error))
            return
        }
        // Written (a write of the same value counts, as in Realm), or different (commits not captured here).
        var changed = Set<Int>()
        if let written = changes?.written(className: schema.className, rowID: rowID) {
            changed.formUnion(written.indexes)
            if written.linkColumns { changed.formUnion(filter.linkColumns) }
        }
        for index in schema.columnIndexes where deliveredValues.indices.contains(index) && deliveredValues[index] != row[index] {
            changed.insert(index)
        }
        if let changes, !linkKeyPaths.isEmpty {
            for path in linkKeyPaths where DeepChanges.modifiedRows(of: schema, keyPaths: [path], changes: changes, in: vault).contains(rowID) {
                if let first = path.split(separator: ".").first, let index = schema.index(ofProperty: String(first)) { changed.insert(index) }
            }
        }
        let reported = filter.filter(changed).sorted()
        let old = deliveredValues
        deliveredValues = row
        guard !reported.isEmpty else { return }
        let propertyChanges = reported.map { index -> PropertyChange in
            let property = schema.properties[index]
            guard property.isColumn else { return PropertyChange(name: property.name, oldValue: nil, newValue: nil) }
            return PropertyChange(name: property.name,
                                  oldValue: old.indices.contains(index) ? vault.boxedValue(old[index], property: index, of: schema) : nil,
                                  newValue: vault.boxedValue(row[index], property: index, of: schema))
        }
        block(.change(object, propertyChanges))
    }

    override func rebaseline(in vault: Vault) {
        deliveredSequence = vault.commitSequence
        if case .success(let values?) = vault.loadRow(schema, rowID: rowID) { deliveredValues = values }
    }
}

/// An object's version and column values as another thread saw them: where
/// an observation registered on a queue starts (see QueueObservation).
struct ObjectObservationBaseline: Sendable {
    let sequence: UInt64
    let values: [DatabaseValue]
}

/// Observes the vault itself: `.didChange` whenever it moves to a new version.
final class VaultObservation: Observation {
    private let block: (VaultNotification, Vault) -> Void

    init(block: @escaping (VaultNotification, Vault) -> Void) {
        self.block = block
    }

    func notify(_ notification: VaultNotification, _ vault: Vault) {
        block(notification, vault)
    }
}
