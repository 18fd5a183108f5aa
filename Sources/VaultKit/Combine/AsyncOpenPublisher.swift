import Foundation
import OpenCombineShim
import VaultCore

extension VaultPublishers {
    /// Opens a vault on a background queue, then emits it on a serial dispatch
    /// queue (the main queue unless `receive(on:)` names another) and finishes,
    /// or fails with the error that kept it from opening (Realm's
    /// `RealmPublishers.AsyncOpenPublisher`). Make it with
    /// ``Vault/asyncOpen(configuration:)``.
    ///
    /// ```swift
    /// Vault.asyncOpen(configuration: configuration)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { vault in show(vault) })
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// The vault emitted is confined to the queue it arrives on (the main
    /// thread for the main queue), as a vault from
    /// ``Vault/asyncOpen(configuration:callbackQueue:callback:)`` is.
    /// Cancelling before it opens skips the emission.
    public struct AsyncOpenPublisher: Publisher {
        /// The opened vault.
        public typealias Output = Vault
        /// The error that kept the vault from opening (a wrong key, a migration that failed, …).
        public typealias Failure = Swift.Error

        let configuration: Vault.Configuration
        let callbackQueue: DispatchQueue

        init(configuration: Vault.Configuration, callbackQueue: DispatchQueue = .main) {
            self.configuration = configuration
            self.callbackQueue = callbackQueue
        }

        /// Attaches `subscriber` and starts opening (Combine calls this for `sink` and `subscribe`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Vault, S.Failure == Swift.Error {
            let subscription = ObservationSubscription(subscriber, keepsNewestOnly: true)
            subscriber.receive(subscription: subscription)
            // Only the callback queue calls it (asyncOpen's callback runs there once).
            let deliver = QueueBound(value: { (result: Swift.Result<Vault, Swift.Error>) in
                switch result {
                case .success(let vault):
                    subscription.send(vault)
                    subscription.finish()
                case .failure(let error):
                    subscription.finish(.failure(error))
                }
            })
            let task = Vault.asyncOpen(configuration: configuration, callbackQueue: callbackQueue) { result in deliver.value(result) }
            subscription.attach(NotificationToken(onInvalidate: { task.cancel() }))
        }

        /// Delivers the vault on `scheduler`, which must be a serial dispatch
        /// queue (as Realm's): the vault is confined to it. Any other scheduler
        /// stops the program with that message, as it does in Realm.
        public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> AsyncOpenPublisher {
            guard let queue = dispatchQueue(of: scheduler) else {
                preconditionFailure("Cannot open a vault for scheduler \(scheduler): a vault is delivered on a serial dispatch queue only")
            }
            return AsyncOpenPublisher(configuration: configuration, callbackQueue: queue)
        }
    }
}

extension Vault {
    /// A publisher that opens the vault on a background queue (migrations and
    /// compaction there) and emits it on the main queue, or on the queue given
    /// to `receive(on:)` (Realm's Combine `Realm.asyncOpen(configuration:)`).
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration) -> VaultPublishers.AsyncOpenPublisher {
        VaultPublishers.AsyncOpenPublisher(configuration: configuration)
    }
}
