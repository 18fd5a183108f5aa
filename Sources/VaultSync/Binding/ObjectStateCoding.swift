/// Stores an object's merge state as the operations that rebuild it.
///
/// An ``ObjectState`` is a join of the operations applied to it, so the
/// shortest description of it is a set of operations that produces exactly
/// it: the create or erase of its incarnation, one `set` per register, a
/// `clear` per collection generation, one insert per list element (then its
/// `listSet`, its moves and its erase), one operation per set member and
/// map key. They are written with the change-set codec (one format, one
/// strict decoder) and replayed through ``MergeRules`` to read the state
/// back. Each operation names the object, so the bytes say whose state they hold.
enum ObjectStateCoding {
    /// The bytes of `state`, the state of `key`.
    static func encode(_ state: ObjectState, of key: SyncObjectKey) throws(SyncError) -> [UInt8] {
        let object = SyncObjectReference(className: key.className, primaryKey: key.primaryKey, incarnation: state.incarnation)
        // The incarnation's operation: its stamp is not part of the state (any non-zero one will do).
        let placeholder = SyncStamp(clock: 1, device: SyncDeviceID(rawValue: 0))
        var operations = [SyncOperation(object: object, stamp: placeholder, change: state.isPresent ? .create : .erase)]
        var devices = Set<SyncDeviceID>()
        func add(_ stamp: SyncStamp, _ change: SyncOperation.Change) {
            if stamp != .zero { devices.insert(stamp.device) }
            operations.append(SyncOperation(object: object, stamp: stamp, change: change))
        }
        for (property, register) in state.properties.sorted(by: { $0.key < $1.key }) {
            add(register.stamp, .set(property: property, value: register.value))
        }
        for (property, collection) in state.collections.sorted(by: { $0.key < $1.key }) {
            let epoch = collection.epoch
            if epoch > .initial { add(epoch.stamp, .clear(property: property, epoch: epoch)) }
            let elements = collection.elements.sorted { $0.key < $1.key }
            for (stamp, element) in elements {
                let before = collection.slots[stamp]?.before
                add(stamp, .listInsert(property: property, epoch: epoch, before: before, value: element.value.value))
                if element.value.stamp != stamp {
                    add(element.value.stamp, .listSet(property: property, epoch: epoch, element: stamp, value: element.value.value))
                }
            }
            for (stamp, slot) in collection.slots.sorted(by: { $0.key < $1.key }) where slot.element != stamp {
                add(stamp, .listMove(property: property, epoch: epoch, element: slot.element, before: slot.before))
            }
            for (stamp, element) in elements where element.isErased {
                add(stamp, .listErase(property: property, epoch: epoch, element: stamp))
            }
            for (value, member) in collection.members.sorted(by: { $0.key.canonicalText < $1.key.canonicalText }) {
                add(member.stamp, .setMember(property: property, epoch: epoch, value: value, present: member.isPresent))
            }
            for (mapKey, entry) in collection.entries.sorted(by: { $0.key < $1.key }) {
                add(entry.stamp, .mapEntry(property: property, epoch: epoch, key: mapKey, value: entry.value))
            }
        }
        // Every device a stamp names is listed, so the codec can name it.
        let author = SyncDeviceID(rawValue: 0)
        let dependencies = Dictionary(uniqueKeysWithValues: devices.filter { $0 != author }.map { ($0, UInt64(0)) })
        return try ChangeSetCodec.encode(ChangeSet(author: author, sequence: 1, dependencies: dependencies, operations: operations))
    }

    /// The state in `bytes`, and the object it belongs to.
    static func decode(_ bytes: [UInt8]) throws(SyncError) -> (key: SyncObjectKey, state: ObjectState) {
        let changeSet = try ChangeSetCodec.decode(bytes)
        guard let first = changeSet.operations.first else { throw .malformedChangeSet("an object state without operations") }
        var state = ObjectState()
        for operation in changeSet.operations {
            guard operation.object == first.object else { throw .malformedChangeSet("an object state naming two objects") }
            MergeRules.apply(operation, to: &state)
        }
        return (first.object.key, state)
    }
}
