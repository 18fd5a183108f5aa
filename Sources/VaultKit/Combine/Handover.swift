import Foundation
import OpenCombineShim
import VaultCore

// MARK: - Crossing schedulers
//
// A live object or collection belongs to its vault's thread. When a pipeline
// moves to another scheduler (`receive(on:)`), each value crosses as a
// thread-safe handover — class, row, query — and is found again on the other
// side in a vault of that scheduler: a vault confined to the dispatch queue,
// or the current thread's for other schedulers. A frozen value crosses as it
// is. A value whose object was deleted before it arrived is dropped, as Realm
// drops it.

/// One value on its way to another scheduler.
///
/// `@unchecked Sendable`: it holds either a frozen value (readable anywhere)
/// or a handover (value data) with a rebuild closure that captures only value
/// data (indices, keys, property changes) and runs on the receiving side.
struct Transfer<Output>: @unchecked Sendable {
    private enum Kind {
        case direct(Output)
        case reference(_ThreadHandover, rebuild: (Vault) -> Output?)
    }
    private let kind: Kind

    /// A value that needs no handover.
    static func direct(_ value: Output) -> Transfer { Transfer(kind: .direct(value)) }

    /// `confined`, handed over (unless frozen), then wrapped by `wrap` on the other side.
    static func of<T: ThreadConfined>(_ confined: T, _ wrap: @escaping (T) -> Output) -> Transfer {
        // Frozen and unmanaged values belong to no thread: passed through as they are (Realm's rule).
        if confined.isFrozen || isUnmanaged(confined) { return Transfer(kind: .direct(wrap(confined))) }
        let handover = confined._threadHandover()
        return Transfer(kind: .reference(handover) { vault in
            if vault.commitSequence < handover.sequence && !vault.isInWriteTransaction { vault.refresh() }
            return T._resolve(handover, in: vault).map(wrap)
        })
    }

    /// Whether `value` is an unmanaged object or collection (no vault to hand it over from).
    private static func isUnmanaged(_ value: Any) -> Bool {
        if let object = value as? ObjectBase { return object.manager == nil }
        if let collection = value as? any PersistableCollection { return collection.binding == nil }
        return false
    }

    /// The value, found again on `scheduler` (called there); nil when it was deleted or the vault cannot open.
    func arrive<S: Scheduler>(on scheduler: S) -> Output? {
        switch kind {
        case .direct(let value):
            return value
        case .reference(let handover, let rebuild):
            let vault: Vault?
            if let queue = dispatchQueue(of: scheduler) {
                vault = try? Vault(configuration: handover.configuration, queue: queue)
            } else {
                vault = try? Vault(configuration: handover.configuration)
            }
            return vault.flatMap(rebuild)
        }
    }
}

extension VaultPublishers {
    /// Delivers thread-confined values on a scheduler through thread-safe
    /// handovers (Realm's `Handover` and `DeferredHandover`): made by
    /// `receive(on:)` on a value publisher, or after ``MakeThreadSafe``.
    public struct Handover<Upstream: Publisher, S: Scheduler>: Publisher where Upstream.Output: ThreadConfined {
        /// The upstream's values, found again on the scheduler.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        private let upstream: Upstream
        private let scheduler: S

        init(_ upstream: Upstream, _ scheduler: S) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            let scheduler = self.scheduler
            upstream
                .map { value in Transfer.of(value) { $0 } }
                .receive(on: scheduler)
                .compactMap { $0.arrive(on: scheduler) }
                .receive(subscriber: subscriber)
        }
    }

    /// Marks a pipeline of thread-confined values (after `map`, `filter`, …)
    /// so that its `receive(on:)` hands them over (Realm's `MakeThreadSafe`):
    /// `.threadSafeReference().receive(on: queue)`.
    public struct MakeThreadSafe<Upstream: Publisher>: Publisher where Upstream.Output: ThreadConfined {
        /// The upstream's values.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        private let upstream: Upstream

        init(_ upstream: Upstream) { self.upstream = upstream }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each value on `scheduler` through a thread-safe handover.
        public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Handover<Upstream, S> {
            Handover(upstream, scheduler)
        }
    }

    /// Marks a pipeline of changes so that its `receive(on:)` hands the
    /// object or collection in each change over (Realm's `MakeThreadSafeObjectChangeset`).
    public struct MakeThreadSafeChanges<Upstream: Publisher>: Publisher {
        /// The upstream's changes.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        private let upstream: Upstream
        private let handover: ChangeHandover<Upstream.Output>

        init(_ upstream: Upstream, _ handover: ChangeHandover<Upstream.Output>) {
            self.upstream = upstream
            self.handover = handover
        }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
            upstream.receive(subscriber: subscriber)
        }

        /// Delivers each change on `scheduler`, its object or collection handed over.
        public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> AnyPublisher<Output, Failure> {
            handover.deliver(upstream, on: scheduler)
        }
    }
}

/// How the object or collection inside a change crosses to another scheduler.
struct ChangeHandover<Change> {
    let transfer: (Change) -> Transfer<Change>

    /// `upstream`'s changes, delivered on `scheduler` with their contents found again there.
    func deliver<P: Publisher, S: Scheduler>(_ upstream: P, on scheduler: S) -> AnyPublisher<Change, P.Failure> where P.Output == Change {
        let transfer = self.transfer
        return upstream
            .map(transfer)
            .receive(on: scheduler)
            .compactMap { $0.arrive(on: scheduler) }
            .eraseToAnyPublisher()
    }
}

extension ChangeHandover {
    /// For a collection's changes.
    static func collection<C: ThreadConfined>() -> ChangeHandover where Change == VaultCollectionChange<C> {
        ChangeHandover { change in
            switch change {
            case .initial(let collection): return .of(collection) { .initial($0) }
            case .update(let collection, let deletions, let insertions, let modifications):
                return .of(collection) { .update($0, deletions: deletions, insertions: insertions, modifications: modifications) }
            case .error: return .direct(change)
            }
        }
    }

    /// For an object's changes.
    static func object<O: ThreadConfined>() -> ChangeHandover where Change == ObjectChange<O> {
        ChangeHandover { change in
            switch change {
            case .change(let object, let properties): return .of(object) { .change($0, properties) }
            case .deleted, .error: return .direct(change)
            }
        }
    }

    /// For a map's changes.
    static func map<C: ThreadConfined & VaultKeyedCollection>() -> ChangeHandover where Change == VaultMapChange<C> {
        ChangeHandover { change in
            switch change {
            case .initial(let map): return .of(map) { .initial($0) }
            case .update(let map, let deletions, let insertions, let modifications):
                return .of(map) { .update($0, deletions: deletions, insertions: insertions, modifications: modifications) }
            case .error: return .direct(change)
            }
        }
    }

    /// For sectioned results' changes: the results cross, and are sectioned again by the same key function.
    static func sectioned<Key, Element>() -> ChangeHandover where Change == SectionedResultsChange<SectionedResults<Key, Element>> {
        ChangeHandover { change in
            switch change {
            case .initial(let sections):
                let key = sections.keyFunction
                return .of(sections.results) { .initial(SectionedResults(results: $0, key: key)) }
            case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                let key = sections.keyFunction
                return .of(sections.results) {
                    .update(SectionedResults(results: $0, key: key), deletions: deletions, insertions: insertions, modifications: modifications,
                            sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
                }
            }
        }
    }
}

extension Publisher {
    /// Freezes every object or collection the upstream emits, so it can be
    /// read on any thread (for example after `receive(on:)` to a concurrent queue).
    public func freeze<T>() -> Publishers.Map<Self, T> where Output: ThreadConfined, T == Output {
        map { $0.freeze() }
    }

    /// Freezes the object in every change the upstream emits.
    public func freeze<T: ThreadConfined>() -> Publishers.Map<Self, ObjectChange<T>> where Output == ObjectChange<T> {
        map { change in
            guard case .change(let object, let properties) = change else { return change }
            return .change(object.freeze(), properties)
        }
    }

    /// Freezes the collection in every change the upstream emits.
    public func freeze<C: ThreadConfined>() -> Publishers.Map<Self, VaultCollectionChange<C>> where Output == VaultCollectionChange<C> {
        map { change in
            switch change {
            case .initial(let collection): return .initial(collection.freeze())
            case .update(let collection, let deletions, let insertions, let modifications):
                return .update(collection.freeze(), deletions: deletions, insertions: insertions, modifications: modifications)
            case .error: return change
            }
        }
    }

    /// Freezes the map in every change the upstream emits.
    public func freeze<C: ThreadConfined & VaultKeyedCollection>() -> Publishers.Map<Self, VaultMapChange<C>> where Output == VaultMapChange<C> {
        map { change in
            switch change {
            case .initial(let map): return .initial(map.freeze())
            case .update(let map, let deletions, let insertions, let modifications):
                return .update(map.freeze(), deletions: deletions, insertions: insertions, modifications: modifications)
            case .error: return change
            }
        }
    }

    /// Freezes the sectioned results in every change the upstream emits.
    public func freeze<Key, Element>() -> Publishers.Map<Self, SectionedResultsChange<SectionedResults<Key, Element>>>
        where Output == SectionedResultsChange<SectionedResults<Key, Element>> {
        map { change in
            switch change {
            case .initial(let sections): return .initial(sections.freeze())
            case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                return .update(sections.freeze(), deletions: deletions, insertions: insertions, modifications: modifications,
                               sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
            }
        }
    }

    /// Makes a later `receive(on:)` hand each object or collection over through a thread-safe reference.
    public func threadSafeReference() -> VaultPublishers.MakeThreadSafe<Self> where Output: ThreadConfined {
        VaultPublishers.MakeThreadSafe(self)
    }

    /// Makes a later `receive(on:)` hand the object in each change over.
    public func threadSafeReference<T: ThreadConfined>() -> VaultPublishers.MakeThreadSafeChanges<Self> where Output == ObjectChange<T> {
        VaultPublishers.MakeThreadSafeChanges(self, .object())
    }

    /// Makes a later `receive(on:)` hand the collection in each change over.
    public func threadSafeReference<C: ThreadConfined>() -> VaultPublishers.MakeThreadSafeChanges<Self> where Output == VaultCollectionChange<C> {
        VaultPublishers.MakeThreadSafeChanges(self, .collection())
    }

    /// Makes a later `receive(on:)` hand the map in each change over.
    public func threadSafeReference<C: ThreadConfined & VaultKeyedCollection>() -> VaultPublishers.MakeThreadSafeChanges<Self> where Output == VaultMapChange<C> {
        VaultPublishers.MakeThreadSafeChanges(self, .map())
    }

    /// Makes a later `receive(on:)` hand the sectioned results in each change over.
    public func threadSafeReference<Key, Element>() -> VaultPublishers.MakeThreadSafeChanges<Self>
        where Output == SectionedResultsChange<SectionedResults<Key, Element>> {
        VaultPublishers.MakeThreadSafeChanges(self, .sectioned())
    }
}
