import Foundation
import OpenCombineShim
import VaultCore

/// A type whose changes VaultKit publishes with Combine (Realm's
/// `RealmSubscribable`): objects, every collection, sectioned results and projections.
public protocol VaultSubscribable {}

/// What an observation tells a value publisher.
enum VaultEmission<Value> {
    /// The object or collection, at its first delivery or after a change.
    case value(Value)
    /// The object was deleted: the publisher finishes.
    case deleted
    /// The observation failed: the publisher fails.
    case failed(Swift.Error)
}

/// Combine publishers for VaultKit's objects, collections and vaults (Realm's
/// `RealmPublishers`). You make them with `collectionPublisher`,
/// `changesetPublisher`, `valuePublisher(_:keyPaths:)` and `objectWillChange`, not directly.
public enum VaultPublishers {
    /// Registers an observation that reports through `emit`, on `queue` when given.
    public typealias Observe<Output> = (_ queue: DispatchQueue?, _ emit: @escaping (Output) -> Void) -> NotificationToken

    /// Emits the object or collection at its first delivery (collections) and
    /// after each change; finishes when the object is deleted.
    ///
    /// `subscribe(on:)` observes on a serial dispatch queue (values arrive there,
    /// read by that queue's vault); `receive(on:)` hands each value over to the
    /// scheduler through a thread-safe reference.
    public struct Value<Subscribable>: Publisher {
        /// The object or collection published.
        public typealias Output = Subscribable
        /// Fails only when the observation does (the vault could not be read).
        public typealias Failure = Swift.Error

        let observe: Observe<VaultEmission<Subscribable>>
        let queue: DispatchQueue?
        /// The vault's configuration, for handing values over to another scheduler.
        let configuration: Vault.Configuration?

        init(configuration: Vault.Configuration?, queue: DispatchQueue? = nil, observe: @escaping Observe<VaultEmission<Subscribable>>) {
            self.configuration = configuration
            self.queue = queue
            self.observe = observe
        }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Subscribable, S.Failure == Swift.Error {
            let subscription = ObservationSubscription(subscriber, keepsNewestOnly: true)
            subscriber.receive(subscription: subscription)
            subscription.attach(observe(queue) { emission in
                switch emission {
                case .value(let value): subscription.send(value)
                case .deleted: subscription.finish()
                case .failed(let error): subscription.finish(.failure(error))
                }
            })
        }

        /// Observes on `scheduler`, a serial dispatch queue: values are delivered
        /// there, read by a vault confined to it. Use it first in a pipeline.
        public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Value<Subscribable> {
            Value(configuration: configuration, queue: subscriptionQueue(of: scheduler), observe: observe)
        }
    }

    /// Emits once after each change of the object, collection or vault — for
    /// `ObservableObject.objectWillChange` (Realm's `WillChange`; despite the
    /// name, it emits after the change, as Realm's does).
    public struct WillChange<Subject>: Publisher {
        /// Nothing: only that something changed.
        public typealias Output = Void
        /// Never fails.
        public typealias Failure = Never

        let observe: (_ changed: @escaping () -> Void) -> NotificationToken

        init(observe: @escaping (_ changed: @escaping () -> Void) -> NotificationToken) {
            self.observe = observe
        }

        /// `observe` when the subject can change (managed, live, not deleted);
        /// otherwise a publisher that never emits — SwiftUI subscribes to
        /// `objectWillChange` of unmanaged and frozen objects too, which have no changes to tell.
        init(observingIf canChange: Bool, _ observe: @escaping (_ changed: @escaping () -> Void) -> NotificationToken) {
            self.observe = canChange ? observe : { _ in NotificationToken {} }
        }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
            let subscription = ObservationSubscription(subscriber, keepsNewestOnly: true)
            subscriber.receive(subscription: subscription)
            subscription.attach(observe { subscription.send(()) })
        }
    }

    /// Emits every change of an object or collection — Realm's
    /// `ObjectChangeset`, `CollectionChangeset`, `MapChangeset` and
    /// `SectionedResultsChangeset`, whose names are kept as type aliases.
    ///
    /// `subscribe(on:)` observes on a serial dispatch queue; `receive(on:)`
    /// hands the object or collection in each change over to the scheduler.
    public struct Changeset<Change>: Publisher {
        /// One change (``VaultCollectionChange``, ``ObjectChange``, ``VaultMapChange``, ``SectionedResultsChange``).
        public typealias Output = Change
        /// Never fails: an error arrives as the change's `.error` case.
        public typealias Failure = Never

        let observe: Observe<Change>
        let queue: DispatchQueue?
        let handover: ChangeHandover<Change>?
        /// Whether a change ends the stream (an object's `.deleted`): the publisher
        /// finishes instead of sending it, as Realm's does.
        let ends: (Change) -> Bool

        init(queue: DispatchQueue? = nil, handover: ChangeHandover<Change>?, ends: @escaping (Change) -> Bool = { _ in false },
             observe: @escaping Observe<Change>) {
            self.queue = queue
            self.handover = handover
            self.ends = ends
            self.observe = observe
        }

        /// Attaches `subscriber` (Combine calls this for `sink`, `assign` and `subscribe`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Change, S.Failure == Never {
            let subscription = ObservationSubscription(subscriber, keepsNewestOnly: false)
            subscriber.receive(subscription: subscription)
            let ends = self.ends
            subscription.attach(observe(queue) { change in
                if ends(change) {
                    subscription.finish()
                } else {
                    subscription.send(change)
                }
            })
        }

        /// Observes on `scheduler`, a serial dispatch queue: changes are
        /// delivered there, read by a vault confined to it. Use it first in a pipeline.
        public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Changeset<Change> {
            Changeset(queue: subscriptionQueue(of: scheduler), handover: handover, ends: ends, observe: observe)
        }

        /// Delivers each change on `scheduler`, its object or collection found
        /// again there through a thread-safe reference (frozen ones pass as they are).
        public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> AnyPublisher<Change, Never> {
            guard let handover else { return Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options).eraseToAnyPublisher() }
            return handover.deliver(self, on: scheduler)
        }
    }

    /// Realm's name: the changes of an object.
    public typealias ObjectChangeset<O> = Changeset<ObjectChange<O>>
    /// Realm's name: the changes of a collection.
    public typealias CollectionChangeset<C> = Changeset<VaultCollectionChange<C>>
    /// Realm's name: the changes of a map.
    public typealias MapChangeset<C: VaultKeyedCollection> = Changeset<VaultMapChange<C>>
    /// Realm's name: the changes of sectioned results.
    public typealias SectionedResultsChangeset<C> = Changeset<SectionedResultsChange<C>>
}

extension VaultPublishers.Value where Subscribable: ThreadConfined {
    /// Delivers each value on `scheduler`: a live object or collection is
    /// handed over through a ``ThreadSafeReference`` and read there by the
    /// scheduler's vault (a frozen one passes as it is). Realm's `receive(on:)`.
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> VaultPublishers.Handover<Self, S> {
        VaultPublishers.Handover(self, scheduler)
    }
}
