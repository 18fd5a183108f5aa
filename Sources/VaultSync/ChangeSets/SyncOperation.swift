/// One change to one object, as every device applies it.
///
/// Each operation names its object with the incarnation its author saw, and
/// carries the stamp it was made at. Collection operations also carry the
/// collection's generation (``SyncEpoch``). List elements are named by the
/// stamp of the operation that inserted them, and positions by *slots*: a
/// slot is a place "just before" another slot (or the end), made by an
/// insert or a move (see the essay in ListOrder.swift).
public struct SyncOperation: Hashable, Sendable {
    /// The object changed, at the incarnation the author saw.
    public var object: SyncObjectReference
    /// When and where the operation was made.
    public var stamp: SyncStamp
    /// What was done.
    public var change: Change

    /// An operation on `object` made at `stamp`.
    public init(object: SyncObjectReference, stamp: SyncStamp, change: Change) {
        self.object = object
        self.stamp = stamp
        self.change = change
    }

    /// What an operation does.
    public enum Change: Hashable, Sendable {
        /// The object exists at the operation's (odd) incarnation, its properties at
        /// their defaults unless set; creating an existing key merges into it.
        case create
        /// The object is deleted; its incarnation becomes the operation's (even) one.
        case erase
        /// A property takes a value (last writer wins, per property).
        case set(property: String, value: SyncValue)
        /// A list element is inserted just before the slot `before` (nil: at the end).
        /// The element and its first slot are named by the operation's stamp.
        case listInsert(property: String, epoch: SyncEpoch, before: SyncStamp?, value: SyncValue)
        /// A list element moves to a new slot (named by the operation's stamp) just before `before`.
        case listMove(property: String, epoch: SyncEpoch, element: SyncStamp, before: SyncStamp?)
        /// A list element is removed.
        case listErase(property: String, epoch: SyncEpoch, element: SyncStamp)
        /// A list element takes a new value (`list[i] = x`).
        case listSet(property: String, epoch: SyncEpoch, element: SyncStamp, value: SyncValue)
        /// A collection is emptied: a new generation starts.
        case clear(property: String, epoch: SyncEpoch)
        /// A set gains (`present`) or loses a member.
        case setMember(property: String, epoch: SyncEpoch, value: SyncValue, present: Bool)
        /// A map key is set (`value`) or removed (`nil`).
        case mapEntry(property: String, epoch: SyncEpoch, key: String, value: SyncValue?)
    }
}

/// The operations of one or more local commits of one device, in order, with
/// what the author had applied when it made them.
public struct ChangeSet: Hashable, Sendable {
    /// The device that made it.
    public var author: SyncDeviceID
    /// Its place among the author's change sets: 1, 2, 3… with no gaps.
    public var sequence: UInt64
    /// For every other device, the last of its change sets the author had
    /// applied: a device applies this change set only after those.
    public var dependencies: [SyncDeviceID: UInt64]
    /// The operations, in the order they are applied.
    public var operations: [SyncOperation]

    /// A change set of `author`'s.
    public init(author: SyncDeviceID, sequence: UInt64, dependencies: [SyncDeviceID: UInt64], operations: [SyncOperation]) {
        self.author = author
        self.sequence = sequence
        self.dependencies = dependencies
        self.operations = operations
    }

    /// The greatest stamp among its operations (the clock's `receive` input).
    public var latestStamp: SyncStamp { operations.map(\.stamp).max() ?? .zero }
}
