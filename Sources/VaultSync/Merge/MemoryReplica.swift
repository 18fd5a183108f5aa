/// A device's synced objects held in memory: the merge rules' reference
/// implementation, used to prove them (every device that applied the same
/// change sets holds the same objects) and to check the vault binding
/// against.
///
/// Local edits are made through the same ``MergeRules`` as remote ones,
/// with stamps from the device's own ``HybridLogicalClock``; ``commit()``
/// gathers them into the device's next ``ChangeSet``. Received change sets
/// are applied exactly once, in causal order: a change set waits until the
/// author's earlier ones and its dependencies are applied.
public final class MemoryReplica {
    /// This device.
    public let device: SyncDeviceID
    /// The device's clock.
    public private(set) var clock: HybridLogicalClock
    /// Every object the device knows, present or deleted.
    public private(set) var objects: [SyncObjectKey: ObjectState] = [:]
    /// For each device (this one included), the last of its change sets applied here.
    public private(set) var applied: [SyncDeviceID: UInt64] = [:]
    /// Received change sets waiting for their predecessors.
    public private(set) var waiting: [ChangeSetID: ChangeSet] = [:]
    /// Operations made since the last ``commit()``.
    private var pending: [SyncOperation] = []

    /// A change set's identity: its author and sequence.
    public struct ChangeSetID: Hashable, Sendable {
        /// The author.
        public var device: SyncDeviceID
        /// The author's sequence number.
        public var sequence: UInt64
    }

    /// A device with no objects, taking clock readings from `now`.
    public init(device: SyncDeviceID, now: @escaping @Sendable () -> UInt64 = HybridLogicalClock.wallClockMilliseconds) {
        self.device = device
        self.clock = HybridLogicalClock(now: now)
    }

    // MARK: Reading

    /// The state of the object `key` (never seen: incarnation 0).
    public func state(of key: SyncObjectKey) -> ObjectState { objects[key] ?? ObjectState() }

    /// Whether a link's target is present at the incarnation the link names.
    public func isLive(_ reference: SyncObjectReference) -> Bool {
        let target = state(of: reference.key)
        return target.isPresent && target.incarnation == reference.incarnation
    }

    /// A reference to the present object `key`, for a link to it; nil when it is absent.
    public func reference(to key: SyncObjectKey) -> SyncObjectReference? {
        let target = state(of: key)
        guard target.isPresent else { return nil }
        return SyncObjectReference(className: key.className, primaryKey: key.primaryKey, incarnation: target.incarnation)
    }

    /// Whether `value` is visible: anything but a link to an absent object.
    public func isVisible(_ value: SyncValue) -> Bool {
        if case .link(let reference) = value { return isLive(reference) }
        return true
    }

    /// The visible elements of a list, in order.
    public func list(_ key: SyncObjectKey, _ property: String) -> [SyncValue] {
        guard let collection = state(of: key).collections[property] else { return [] }
        return ListOrder.visibleElements(of: collection, isVisible: isVisible).compactMap { collection.elements[$0]?.value.value }
    }

    // MARK: Local edits

    /// Creates the object `key` (or, if it exists, merges into it) with `values`.
    public func create(_ key: SyncObjectKey, values: [String: SyncValue] = [:]) {
        let current = state(of: key)
        let incarnation = current.isPresent ? current.incarnation : current.incarnation + 1
        record(SyncOperation(object: reference(key, incarnation), stamp: nextStamp(), change: .create))
        for (property, value) in values.sorted(by: { $0.key < $1.key }) { set(key, property, value) }
    }

    /// Deletes the object `key`, if present.
    public func delete(_ key: SyncObjectKey) {
        let current = state(of: key)
        guard current.isPresent else { return }
        record(SyncOperation(object: reference(key, current.incarnation + 1), stamp: nextStamp(), change: .erase))
    }

    /// Sets a property of the present object `key`.
    public func set(_ key: SyncObjectKey, _ property: String, _ value: SyncValue) {
        edit(key, .set(property: property, value: value))
    }

    /// Inserts `value` at `index` (0…count) of a list.
    public func listInsert(_ key: SyncObjectKey, _ property: String, at index: Int, _ value: SyncValue) {
        guard let (collection, visible) = visibleList(key, property), index >= 0, index <= visible.count else { return }
        let before = index < visible.count ? collection.elements[visible[index]]?.position : nil
        edit(key, .listInsert(property: property, epoch: collection.epoch, before: before, value: value))
    }

    /// Moves the element at `from` to `to` (indices of the list before and after the move).
    public func listMove(_ key: SyncObjectKey, _ property: String, from: Int, to: Int) {
        guard let (collection, visible) = visibleList(key, property), visible.indices.contains(from), visible.indices.contains(to) else { return }
        var after = visible
        let element = after.remove(at: from)
        after.insert(element, at: to)
        let before = to + 1 < after.count ? collection.elements[after[to + 1]]?.position : nil
        edit(key, .listMove(property: property, epoch: collection.epoch, element: element, before: before))
    }

    /// Removes the element at `index` of a list.
    public func listRemove(_ key: SyncObjectKey, _ property: String, at index: Int) {
        guard let (collection, visible) = visibleList(key, property), visible.indices.contains(index) else { return }
        edit(key, .listErase(property: property, epoch: collection.epoch, element: visible[index]))
    }

    /// Replaces the element at `index` of a list.
    public func listSet(_ key: SyncObjectKey, _ property: String, at index: Int, _ value: SyncValue) {
        guard let (collection, visible) = visibleList(key, property), visible.indices.contains(index) else { return }
        edit(key, .listSet(property: property, epoch: collection.epoch, element: visible[index], value: value))
    }

    /// Empties a list, set or map.
    public func clear(_ key: SyncObjectKey, _ property: String) {
        let current = state(of: key).collections[property]?.epoch ?? .initial
        let stamp = nextStamp()
        edit(key, .clear(property: property, epoch: SyncEpoch(count: current.count + 1, stamp: stamp)), stamp: stamp)
    }

    /// Adds `value` to (or, with `present` false, removes it from) a set.
    public func setMember(_ key: SyncObjectKey, _ property: String, _ value: SyncValue, present: Bool) {
        let epoch = state(of: key).collections[property]?.epoch ?? .initial
        edit(key, .setMember(property: property, epoch: epoch, value: value, present: present))
    }

    /// Sets (or, with nil, removes) a map key.
    public func mapEntry(_ key: SyncObjectKey, _ property: String, _ mapKey: String, _ value: SyncValue?) {
        let epoch = state(of: key).collections[property]?.epoch ?? .initial
        edit(key, .mapEntry(property: property, epoch: epoch, key: mapKey, value: value))
    }

    /// The operations made since the last commit as this device's next change
    /// set (nil when there are none). It is applied here already.
    public func commit() -> ChangeSet? {
        guard !pending.isEmpty else { return nil }
        let sequence = (applied[device] ?? 0) + 1
        var dependencies = applied
        dependencies[device] = nil
        let changeSet = ChangeSet(author: device, sequence: sequence, dependencies: dependencies, operations: pending)
        pending = []
        applied[device] = sequence
        return changeSet
    }

    // MARK: Remote change sets

    /// Takes in received change sets (duplicates and any order allowed) and
    /// applies every one whose predecessors are applied. Local edits not yet
    /// committed are committed first (returned), so they keep their place before the remote ones.
    @discardableResult
    public func receive(_ changeSets: [ChangeSet]) -> ChangeSet? {
        let committed = commit()
        for changeSet in changeSets where changeSet.author != device && changeSet.sequence > (applied[changeSet.author] ?? 0) {
            waiting[ChangeSetID(device: changeSet.author, sequence: changeSet.sequence)] = changeSet
        }
        var progress = true
        while progress {
            progress = false
            for (id, changeSet) in waiting.sorted(by: { ($0.key.device, $0.key.sequence) < ($1.key.device, $1.key.sequence) }) where isReady(changeSet) {
                apply(changeSet)
                waiting[id] = nil
                progress = true
            }
        }
        return committed
    }

    private func isReady(_ changeSet: ChangeSet) -> Bool {
        guard (applied[changeSet.author] ?? 0) == changeSet.sequence - 1 else { return false }
        return changeSet.dependencies.allSatisfy { device, sequence in (applied[device] ?? 0) >= sequence }
    }

    private func apply(_ changeSet: ChangeSet) {
        clock.receive(changeSet.latestStamp.clock)
        for operation in changeSet.operations {
            MergeRules.apply(operation, to: &objects[operation.object.key, default: ObjectState()])
        }
        applied[changeSet.author] = changeSet.sequence
    }

    // MARK: Helpers

    private func nextStamp() -> SyncStamp { SyncStamp(clock: clock.tick(), device: device) }

    private func reference(_ key: SyncObjectKey, _ incarnation: UInt64) -> SyncObjectReference {
        SyncObjectReference(className: key.className, primaryKey: key.primaryKey, incarnation: incarnation)
    }

    private func visibleList(_ key: SyncObjectKey, _ property: String) -> (CollectionState, [SyncStamp])? {
        let current = state(of: key)
        guard current.isPresent else { return nil }
        let collection = current.collections[property] ?? CollectionState()
        return (collection, ListOrder.visibleElements(of: collection, isVisible: isVisible))
    }

    private func edit(_ key: SyncObjectKey, _ change: SyncOperation.Change, stamp: SyncStamp? = nil) {
        let current = state(of: key)
        guard current.isPresent else { return }
        record(SyncOperation(object: reference(key, current.incarnation), stamp: stamp ?? nextStamp(), change: change))
    }

    private func record(_ operation: SyncOperation) {
        MergeRules.apply(operation, to: &objects[operation.object.key, default: ObjectState()])
        pending.append(operation)
    }
}
