import Foundation
import VaultCore

// MARK: - Change streams
//
// `results.changes()` and `object.changes()` are the `AsyncSequence` form of
// `observe`. The stream is fed by an ordinary observation (delivered at the
// vault's delivery points, on its thread or queue) and read by a task. The
// two run at their own pace, so the stream keeps at most one pending element
// and merges every new change into it — never drops one, which would leave a
// consumer applying indices to the wrong collection:
//
//   - collections keep the element ids of the last element handed out and the
//     ids now, with the set of element ids written in between; the change is
//     computed when the consumer takes it, so two pending updates become the
//     update from the first one's base to the second one's result (an initial
//     not yet taken stays an initial);
//   - objects keep each written property once, with the oldest old value and
//     the newest new value; `.deleted` ends the stream after it is read.
//
// Elements carry live collections and objects, which belong to the vault's
// isolation: consume the stream there (main-actor code for a main-thread vault;
// a block of the queue of a queue-confined vault). `next(isolation:)` keeps the
// consumer on its caller's isolation. Cancelling the consuming task, or
// dropping the iterator, ends the observation.

/// An `AsyncSequence` of a collection's or an object's changes: see
/// ``Results/changes(keyPaths:)`` and ``ObservableVaultObject/changes(keyPaths:)``.
public struct VaultChanges<Change>: AsyncSequence {
    public typealias Element = Change
    public typealias Failure = Never

    let start: () -> (buffer: ChangeBuffer<Change>, token: NotificationToken)

    /// Starts observing: the first element is the collection's `.initial`.
    public func makeAsyncIterator() -> Iterator {
        let started = start()
        return Iterator(buffer: started.buffer, token: started.token)
    }

    /// Reads the merged pending change; `nil` once the task is cancelled or an object was deleted.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: ChangeBuffer<Change>
        let token: NotificationToken

        /// The next change, waiting on the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Change? {
            let buffer = self.buffer, token = self.token
            return await withTaskCancellationHandler {
                await buffer.next()
            } onCancel: {
                token.invalidate()
                buffer.finish()
            }
        }

        /// The next change.
        public mutating func next() async -> Change? {
            await next(isolation: nil)
        }
    }
}

/// One pending (merged) change and the consumer waiting for it.
///
/// `@unchecked Sendable` is safe because its state is only touched under
/// `lock`; the change values it hands over are used by the consumer, which
/// runs in the vault's isolation (see the essay above).
final class ChangeBuffer<Change>: @unchecked Sendable {
    private let lock = NSLock()
    /// The pending change, computed when taken (`nil`: nothing left to say after all).
    private var pending: (() -> Change?)?
    private var waiting: CheckedContinuation<Change?, Never>?
    private var finished = false
    /// Set by the producer: folds the next arrival into what is pending.
    private let merge: (_ pending: (() -> Change?)?, _ arriving: @escaping () -> Change?) -> () -> Change?

    init(merge: @escaping (_ pending: (() -> Change?)?, _ arriving: @escaping () -> Change?) -> () -> Change? = { _, arriving in arriving }) {
        self.merge = merge
    }

    /// A new change arrives (on the vault's isolation): hand it over, or merge it into the pending one.
    func push(_ arriving: @escaping () -> Change?, last: Bool = false) {
        lock.lock()
        guard !finished else { lock.unlock(); return }
        if last { finished = true }
        if let waiting, let change = arriving() {
            self.waiting = nil
            lock.unlock()
            waiting.resume(returning: change)
            return
        }
        if waiting == nil { pending = merge(pending, arriving) }
        lock.unlock()
    }

    func next() async -> Change? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Change?, Never>) in
            lock.lock()
            if let pending {
                self.pending = nil
                if let change = pending() {
                    lock.unlock()
                    continuation.resume(returning: change)
                    return
                }
            }
            if finished {
                lock.unlock()
                continuation.resume(returning: nil)
                return
            }
            waiting = continuation
            lock.unlock()
        }
    }

    /// Ends the stream: a waiting consumer gets `nil`.
    func finish() {
        lock.lock()
        finished = true
        let waiting = self.waiting
        self.waiting = nil
        lock.unlock()
        waiting?.resume(returning: nil)
    }
}

/// The id-level state a collection stream merges into (guarded by its own lock:
/// the producer adds on the vault's isolation, the consumer takes on its own).
final class MergedCollectionState: @unchecked Sendable {
    // Safe because every access holds `lock`.
    private let lock = NSLock()
    /// `nil` base: the pending element is the initial one.
    private var base: [Int64]?
    /// The initial element has not been handed out yet.
    private var isInitial = true
    private var now: [Int64] = []
    private var written = Set<Int64>()

    func reset(base: [Int64]?, now: [Int64]) {
        lock.lock(); defer { lock.unlock() }
        self.base = base
        self.now = now
        isInitial = base == nil
        written = []
    }

    func add(from old: [Int64], to new: [Int64], written rows: Set<Int64>) {
        lock.lock(); defer { lock.unlock() }
        if base == nil && !isInitial { base = old }
        now = new
        written.formUnion(rows)
    }

    /// The merged change since the last element handed out (`nil` if another
    /// take already handed it out); the next one starts from here.
    func take<C>(_ collection: C) -> VaultCollectionChange<C>? {
        lock.lock(); defer { lock.unlock() }
        if isInitial {
            isInitial = false
            written = []
            return .initial(collection)
        }
        guard let base else { return nil }
        defer {
            self.base = nil
            written = []
        }
        let written = self.written
        let diff = CollectionDiff(old: base, new: now) { written.contains($0) }
        return .update(collection, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }
}

extension Results {
    /// The changes of these results as an `AsyncSequence`: `.initial` first,
    /// then each update, pending updates merged into one (never dropped).
    /// Consume it in the vault's isolation; cancelling the task ends the observation.
    ///
    /// ```swift
    /// for await change in people.changes() {
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { apply(deletions, insertions, modifications) }
    /// }
    /// ```
    public func changes(keyPaths: [String]? = nil) -> VaultChanges<VaultCollectionChange<Results<Element>>> {
        VaultChanges {
            let buffer = ChangeBuffer<VaultCollectionChange<Results<Element>>>(merge: { _, arriving in arriving })
            let filter = PropertyFilter(keyPaths: keyPaths, schema: schema)
            let className = schema.className
            let merged = MergedCollectionState()
            let dependencies = QueryDependencies(definition: definition, schema: schema)
            let observation = CollectionObservation<Results<Element>>(
                currentIDs: { self.rowIDs() }, modificationTest: { changes in self.modificationTest(changes, filter: filter, keyPaths: keyPaths) },
                idsUnchanged: { changes in dependencies.idsUnchanged(by: changes, className: className, linkColumns: filter.linkColumns) }
            ) { old, new, modified in
                guard let old else {
                    merged.reset(base: nil, now: new)
                    return buffer.push { merged.take(self) }
                }
                let written = modified.written(in: old)
                guard old != new || !written.isEmpty else { return }
                merged.add(from: old, to: new, written: written)
                buffer.push { merged.take(self) }
            }
            return (buffer, owner.register(observation))
        }
    }
}

extension ObservableVaultObject {
    /// This object's changes as an `AsyncSequence` (no initial element, as in
    /// Realm); pending changes merge, each property once; the sequence ends
    /// after `.deleted`. Consume it in the vault's isolation.
    public func changes(keyPaths: [String]? = nil) -> VaultChanges<ObjectChange<Self>> {
        VaultChanges {
            let buffer = ChangeBuffer<ObjectChange<Self>>(merge: { pending, arriving in
                guard let pending else { return arriving }
                return {
                    guard let earlier = pending() else { return arriving() }
                    return arriving().map { mergeObjectChanges(earlier, $0) } ?? earlier
                }
            })
            let token = self.observe(keyPaths: keyPaths) { change in
                if case .deleted = change { buffer.push({ change }, last: true) } else { buffer.push { change } }
            }
            return (buffer, token)
        }
    }
}

/// Two object changes as one: each property once, the oldest old value and the newest new value.
func mergeObjectChanges<T>(_ first: ObjectChange<T>, _ second: ObjectChange<T>) -> ObjectChange<T> {
    guard case .change(_, let earlier) = first, case .change(let object, let later) = second else { return second }
    var merged = earlier
    for change in later {
        if let index = merged.firstIndex(where: { $0.name == change.name }) {
            merged[index] = PropertyChange(name: change.name, oldValue: merged[index].oldValue, newValue: change.newValue)
        } else {
            merged.append(change)
        }
    }
    return .change(object, merged)
}
