/// The order of a synced list, computed from its slots.
///
/// HOW
///
/// Every insert or move makes a *slot*, named by its operation's stamp and
/// placed just before another slot (or before the end). The slots form a
/// tree: the children of a slot are the slots placed just before it. The
/// sequence of a slot's subtree is, for each child in ascending stamp order,
/// the child's subtree sequence followed by the child; the list is the
/// sequence of the end. An element sits at the latest slot made for it; its
/// other slots are empty places.
///
/// WHY IT CONVERGES, AND MATCHES WHAT THE AUTHOR SAW
///
/// The order is a function of the set of slots, which every device that
/// applied the same operations holds, in whatever order they arrived. A local
/// insert at index i is placed before the slot of the element then at i: its
/// stamp exceeds every stamp its author knows, so it becomes that slot's
/// last child and lands exactly at i. Two devices inserting at the same place
/// concurrently both keep their element, the earlier stamp first (Realm
/// Sync's rule for two `ArrayInsert`s at one index).
enum ListOrder {
    /// The visible elements' stamps in list order: not erased, sitting at
    /// their slot, and accepted by `isVisible` (a link to a deleted object is not).
    static func visibleElements(of list: CollectionState, isVisible: (SyncValue) -> Bool = { _ in true }) -> [SyncStamp] {
        var children: [SyncStamp?: [SyncStamp]] = [:]
        for (stamp, slot) in list.slots { children[slot.before, default: []].append(stamp) }
        for key in children.keys { children[key]?.sort() }
        // Iterative post-order walk (a long run of inserts at the front nests deeply).
        var order: [SyncStamp] = []
        order.reserveCapacity(list.slots.count)
        var stack: [(slot: SyncStamp?, next: Int)] = [(nil, 0)]
        while let top = stack.last {
            let kids = children[top.slot] ?? []
            if top.next < kids.count {
                stack[stack.count - 1].next += 1
                stack.append((kids[top.next], 0))
            } else {
                stack.removeLast()
                if let slot = top.slot { order.append(slot) }
            }
        }
        return order.compactMap { slotStamp -> SyncStamp? in
            guard let slot = list.slots[slotStamp], let element = list.elements[slot.element],
                  element.position == slotStamp, !element.isErased, isVisible(element.value.value) else { return nil }
            return slot.element
        }
    }
}
