import Foundation
import OpenCombineShim
import VaultCore

// MARK: - Combine, over the notification engine
//
// Every publisher of this folder is a thin adapter: subscribing registers an
// ordinary observation (`observe(keyPaths:on:_:)`), and the subscription below
// forwards what the observation delivers. Unlike Realm's, it honours demand:
// a value that arrives while the subscriber asked for none waits — for value
// publishers only the newest waits (the collection or object is live, so an
// older emission would show the same contents), for changeset publishers
// every change waits in order — and is sent when demand comes. Cancelling
// invalidates the observation's token at once and drops the subscriber and
// anything waiting: nothing is delivered after `cancel()` returns, and nothing
// keeps the subscriber alive.
//
// `OpenCombineShim` is Apple's Combine on Apple platforms and OpenCombine
// elsewhere, so the same code compiles on Linux and Apple.

/// The subscription of every VaultKit publisher: forwards an observation's
/// deliveries to one subscriber, honouring its demand (Realm's `ObservationSubscription`).
///
/// `@unchecked Sendable`: every field is behind `lock`; the subscriber is called
/// outside it, by one thread at a time (`isDelivering`), as Combine requires.
public final class ObservationSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable {
    private let lock = NSLock()
    private var downstream: Downstream?
    private var token: NotificationToken?
    private var demand = Subscribers.Demand.none
    private var waiting: [Downstream.Input] = []
    private var completion: Subscribers.Completion<Downstream.Failure>?
    private var isDelivering = false
    /// Whether only the newest waiting value is kept (value publishers).
    private let keepsNewestOnly: Bool

    init(_ downstream: Downstream, keepsNewestOnly: Bool) {
        self.downstream = downstream
        self.keepsNewestOnly = keepsNewestOnly
    }

    /// Keeps the observation's token (or ends it at once if already cancelled).
    func attach(_ token: NotificationToken) {
        lock.lock()
        let cancelled = downstream == nil
        if !cancelled { self.token = token }
        lock.unlock()
        if cancelled { token.invalidate() }
    }

    /// Asks for `demand` more values.
    public func request(_ demand: Subscribers.Demand) {
        lock.lock()
        self.demand += demand
        lock.unlock()
        drain()
    }

    /// Stops the observation: nothing is delivered afterwards.
    public func cancel() {
        lock.lock()
        downstream = nil
        waiting = []
        completion = nil
        let token = self.token
        self.token = nil
        lock.unlock()
        token?.invalidate()
    }

    /// Forwards a value (now if there is demand, else when there is).
    func send(_ value: Downstream.Input) {
        lock.lock()
        guard downstream != nil, completion == nil else { lock.unlock(); return }
        if keepsNewestOnly { waiting = [value] } else { waiting.append(value) }
        lock.unlock()
        drain()
    }

    /// Ends the stream after the values still waiting.
    func finish(_ completion: Subscribers.Completion<Downstream.Failure> = .finished) {
        lock.lock()
        guard downstream != nil, self.completion == nil else { lock.unlock(); return }
        self.completion = completion
        lock.unlock()
        drain()
    }

    /// Sends waiting values while there is demand, then the completion; one thread at a time.
    private func drain() {
        lock.lock()
        guard !isDelivering else { lock.unlock(); return }
        isDelivering = true
        while let subscriber = downstream {
            if !waiting.isEmpty, demand > 0 {
                let value = waiting.removeFirst()
                demand -= 1
                lock.unlock()
                let more = subscriber.receive(value)
                lock.lock()
                demand += more
            } else if waiting.isEmpty, let completion {
                downstream = nil
                let token = self.token
                self.token = nil
                lock.unlock()
                token?.invalidate()
                subscriber.receive(completion: completion)
                lock.lock()
            } else {
                break
            }
        }
        isDelivering = false
        lock.unlock()
    }
}

extension NotificationToken: Cancellable {
    /// Stops the observation (``invalidate()``), so a token can be kept with
    /// Combine's cancellables: `token.store(in: &cancellables)`.
    public func cancel() { invalidate() }
}

/// The serial dispatch queue a scheduler stands for, if it is one.
func dispatchQueue<S: Scheduler>(of scheduler: S) -> DispatchQueue? {
    if let queue = scheduler as? DispatchQueue { return queue }
    #if !canImport(Combine)
    if let wrapped = scheduler as? DispatchQueue.OCombine { return wrapped.queue }
    #endif
    return nil
}

/// The queue a publisher's `subscribe(on:)` observes on: only serial dispatch queues, as in Realm.
func subscriptionQueue<S: Scheduler>(of scheduler: S) -> DispatchQueue {
    guard let queue = dispatchQueue(of: scheduler) else {
        preconditionFailure("Cannot subscribe on scheduler \(scheduler): VaultKit publishers subscribe on serial dispatch queues only")
    }
    return queue
}
