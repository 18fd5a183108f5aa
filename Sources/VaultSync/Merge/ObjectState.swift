/// What a device knows of one synced object: enough to merge any later
/// operation on it, whatever order concurrent operations arrive in.
///
/// The object's visible values are a function of this state (and of which
/// linked objects are present): ``MergeRules`` changes it, and the vault
/// binding writes the visible difference to the object's row.
public struct ObjectState: Hashable, Sendable {
    /// How often the key was created and deleted: odd present, even deleted, 0 never seen.
    public var incarnation: UInt64
    /// Each written property's value and the stamp it was written at.
    public var properties: [String: Register] = [:]
    /// Each collection property's state.
    public var collections: [String: CollectionState] = [:]

    /// The state of an object at `incarnation`, with nothing written.
    public init(incarnation: UInt64 = 0) { self.incarnation = incarnation }

    /// Whether the object exists.
    public var isPresent: Bool { incarnation % 2 == 1 }

    /// A last-writer-wins value.
    public struct Register: Hashable, Sendable {
        /// The value.
        public var value: SyncValue
        /// When it was written.
        public var stamp: SyncStamp
    }
}

/// A list, set or map property's merge state. Only the part for its kind is used.
public struct CollectionState: Hashable, Sendable {
    /// The current generation (advanced by clears).
    public var epoch: SyncEpoch = .initial
    /// List slots by their stamp: where each sits (before another slot, or the end) and whose place it is.
    public var slots: [SyncStamp: Slot] = [:]
    /// List elements by the stamp of their insert.
    public var elements: [SyncStamp: Element] = [:]
    /// Set members (present or removed) with the stamp of their last add or remove.
    public var members: [SyncValue: Member] = [:]
    /// Map keys with their value (nil: removed) and the stamp of their last write.
    public var entries: [String: Entry] = [:]

    /// An empty collection in `epoch`.
    public init(epoch: SyncEpoch = .initial) { self.epoch = epoch }

    /// A place in a list: just before `before` (nil: the end), made for `element`.
    public struct Slot: Hashable, Sendable {
        /// The slot this one sits just before; nil for the end of the list.
        public var before: SyncStamp?
        /// The element the slot was made for.
        public var element: SyncStamp
    }

    /// A list element.
    public struct Element: Hashable, Sendable {
        /// Its value and when it was last set.
        public var value: ObjectState.Register
        /// The slot it sits at: the latest slot made for it.
        public var position: SyncStamp
        /// Whether it was removed (final: removal wins over concurrent moves and sets).
        public var isErased: Bool
    }

    /// A set member's last add or remove.
    public struct Member: Hashable, Sendable {
        /// Whether the last operation added it.
        public var isPresent: Bool
        /// When.
        public var stamp: SyncStamp
    }

    /// A map key's last write.
    public struct Entry: Hashable, Sendable {
        /// The value, or nil when the key was removed.
        public var value: SyncValue?
        /// When.
        public var stamp: SyncStamp
    }
}
