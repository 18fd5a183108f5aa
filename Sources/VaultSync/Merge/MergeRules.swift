// MARK: - Merge rules
//
// OVERVIEW
//
// A relay that cannot read the data cannot merge it: every device merges the
// change sets it receives itself, and two devices that applied the same
// change sets must hold the same objects, whatever order they came in. The
// rules are Realm Sync's (realm-core `src/realm/sync/transform.cpp`), made
// order-independent so that no server needs to transform anything:
//
//   1. Per-property last writer wins: of two writes to one property, the one
//      with the later stamp stays (hybrid logical clock, then device id).
//   2. A delete wins over concurrent updates: an object's incarnation counts
//      its creates and deletes (odd: present), merges by maximum, and every
//      operation carries the incarnation its author saw; operations on an
//      older incarnation are discarded.
//   3. Creating an object with an existing primary key merges into it: two
//      creates of one key at the same incarnation are the same object, and
//      their property writes merge by rule 1.
//   4. Concurrent list inserts are all kept, in one order every device
//      computes (ListOrder); a removed element stays removed (removal wins
//      over a concurrent move or set); of two moves of one element the later
//      wins.
//   5. Set members and map keys merge one by one, last writer wins.
//   6. Clearing a collection starts a new generation: operations made in an
//      older one are discarded; of two concurrent clears the later wins.
//   7. Links name their target's incarnation: a link to a deleted object
//      reads as nil (to-one, map value) or is absent (list, set), and never
//      reaches a later object created with the same key.
//
// WHY EVERY DEVICE CONVERGES
//
// Each piece of state is a join: incarnations and generations take the
// maximum; registers, members, entries and element values keep the greatest
// stamp; erasure is final; list slots form a set. Applying an operation is
// therefore commutative with every operation concurrent with it, and
// idempotent. The only order that matters — a list slot named as an anchor
// must exist before it is used — is guaranteed by causal delivery: a change
// set is applied only after every change set its author had applied (its
// `dependencies`), and an author only anchors on slots it holds.
//
// WHAT A DEVICE SEES
//
// Local writes are applied through these same rules with a stamp later than
// anything the device knows, so they always take effect locally; the visible
// value of an object is a function of its state and of which linked objects
// are present (rule 7), which the vault binding keeps in its rows.

/// Applies operations to object states by the merge rules above.
public enum MergeRules {
    /// Applies `operation` to `state` (the state of the object it names).
    /// Returns false when the operation was discarded (an older incarnation or generation).
    @discardableResult
    public static func apply(_ operation: SyncOperation, to state: inout ObjectState) -> Bool {
        let incarnation = operation.object.incarnation
        guard incarnation >= state.incarnation else { return false }   // rule 2
        if incarnation > state.incarnation {
            // A newer incarnation: everything known of the older one goes.
            state = ObjectState(incarnation: incarnation)
        }
        switch operation.change {
        case .create, .erase:
            return true   // rules 2 and 3: the incarnation says it all
        case .set(let property, let value):
            guard state.isPresent else { return false }
            if operation.stamp > (state.properties[property]?.stamp ?? .zero) {
                state.properties[property] = ObjectState.Register(value: value, stamp: operation.stamp)
            }
            return true
        case .clear(let property, let epoch):
            guard state.isPresent else { return false }
            var collection = state.collections[property] ?? CollectionState()
            guard epoch > collection.epoch else { return false }
            collection = CollectionState(epoch: epoch)
            state.collections[property] = collection
            return true
        case .listInsert(let property, let epoch, _, _), .listMove(let property, let epoch, _, _),
             .listErase(let property, let epoch, _), .listSet(let property, let epoch, _, _),
             .setMember(let property, let epoch, _, _), .mapEntry(let property, let epoch, _, _):
            guard state.isPresent else { return false }
            var collection = state.collections[property] ?? CollectionState()
            if epoch < collection.epoch { return false }   // rule 6
            if epoch > collection.epoch { collection = CollectionState(epoch: epoch) }
            applyCollection(operation.change, stamp: operation.stamp, to: &collection)
            state.collections[property] = collection
            return true
        }
    }

    private static func applyCollection(_ change: SyncOperation.Change, stamp: SyncStamp, to collection: inout CollectionState) {
        switch change {
        case .listInsert(_, _, let before, let value):
            guard collection.elements[stamp] == nil else { return }   // a repeat
            collection.slots[stamp] = CollectionState.Slot(before: before, element: stamp)
            collection.elements[stamp] = CollectionState.Element(value: ObjectState.Register(value: value, stamp: stamp),
                                                                 position: stamp, isErased: false)
        case .listMove(_, _, let element, let before):
            guard var target = collection.elements[element] else { return }
            collection.slots[stamp] = CollectionState.Slot(before: before, element: element)
            if stamp > target.position { target.position = stamp }   // rule 4: the later move wins
            collection.elements[element] = target
        case .listErase(_, _, let element):
            collection.elements[element]?.isErased = true
        case .listSet(_, _, let element, let value):
            guard var target = collection.elements[element], !target.isErased, stamp > target.value.stamp else { return }
            target.value = ObjectState.Register(value: value, stamp: stamp)
            collection.elements[element] = target
        case .setMember(_, _, let value, let present):
            if stamp > (collection.members[value]?.stamp ?? .zero) {
                collection.members[value] = CollectionState.Member(isPresent: present, stamp: stamp)
            }
        case .mapEntry(_, _, let key, let value):
            if stamp > (collection.entries[key]?.stamp ?? .zero) {
                collection.entries[key] = CollectionState.Entry(value: value, stamp: stamp)
            }
        case .create, .erase, .set, .clear:
            return
        }
    }
}
