import Foundation
import VaultCore

/// The process-wide meeting point of one vault file's writers and observers
/// (Realm's `RealmCoordinator`): every `Vault` of this process that writes the
/// file hands it the changes of each commit, keyed by commit sequence, and
/// every session that observes the file is told a commit happened.
///
/// It keeps the changes of the most recent commits only (``retainedCommits``):
/// a notifier that fell further behind, or a range that holds a commit made by
/// another process (never captured here), gets `nil` from
/// ``changes(after:through:)`` and reads the range from the change log
/// (ChangeLog), whose entries are then kept here too.
final class ChangeCoordinator: Sendable {
    /// How many commits' changes are kept for notifiers that lag behind.
    static let retainedCommits = 256

    private struct State {
        var observerCount = 0
        var commits: [UInt64: TransactionChanges] = [:]
        /// Sessions with observers, woken after each commit (see ``wakeObservers(except:)``).
        var wakers: [ObjectIdentifier: @Sendable () -> Void] = [:]
        /// The commit sequences vaults of this process read, with how many read each.
        var pins: [UInt64: Int] = [:]
        /// Whether `shouldCompactOnLaunch` was asked since the file was opened in this process.
        var launchCompactionClaimed = false
    }

    private let state = Locked(State())
    /// The largest row id each table has held in this process (see RowIDHighWater).
    let rowIDHighWater = RowIDHighWater()
    /// Asynchronous writes of this process now suspended waiting for the write lock (see Vault+Concurrency).
    let asyncWritersWaiting = Locked(0)
    /// The vault file's path (`nil` for in-memory vaults, which no other process sees).
    private let filePath: String?
    /// Listens for other processes' commits while this process observes the file.
    private let listener = Locked<CommitSignal.Listener?>(nil)

    private init(filePath: String?) {
        self.filePath = filePath
    }

    /// Holds a coordinator without keeping it alive: the sessions of its file do.
    private final class WeakCoordinator {
        weak var coordinator: ChangeCoordinator?
        init(_ coordinator: ChangeCoordinator) { self.coordinator = coordinator }
    }

    private static let coordinators = Locked<[String: WeakCoordinator]>([:])

    /// The coordinator of the file (or in-memory vault) at `path`, shared by
    /// every session of this process that has it open.
    static func shared(for path: String, isFile: Bool) -> ChangeCoordinator {
        coordinators.withLock { all in
            if let existing = all[path]?.coordinator { return existing }
            let created = ChangeCoordinator(filePath: isFile ? path : nil)
            all = all.filter { $0.value.coordinator != nil }
            all[path] = WeakCoordinator(created)
            return created
        }
    }

    /// Whether anyone observes the file — in this process, or in another one
    /// listening on its commit pipe: writers capture changes only then.
    var isCapturing: Bool {
        if state.withLock({ $0.observerCount > 0 }) { return true }
        guard let filePath else { return false }
        return CommitSignal.hasListener(vaultPath: filePath)
    }

    /// Whether the vault is a file (other processes may observe it) rather than in memory.
    var isFile: Bool { filePath != nil }

    func observerAdded() {
        let first = state.withLock { state -> Bool in
            state.observerCount += 1
            return state.observerCount == 1
        }
        guard first, let filePath else { return }
        // Other processes' commits wake this one's observers (see CommitSignal).
        let created = CommitSignal.Listener(vaultPath: filePath) { [weak self] in self?.wakeObservers(except: nil) }
        listener.withLock { $0 = created }
    }

    func observerRemoved() {
        let last = state.withLock { state -> Bool in
            state.observerCount = max(0, state.observerCount - 1)
            if state.observerCount == 0 { state.commits = [:] }
            return state.observerCount == 0
        }
        if last { listener.withLock { $0?.cancel(); $0 = nil } }
    }

    /// Tells other processes that this one committed to the file.
    func signalCommit() {
        if let filePath { CommitSignal.ring(vaultPath: filePath) }
    }

    /// Registers the closure that wakes a session after commits (replacing its previous one).
    func setWaker(for session: ObjectIdentifier, _ waker: (@Sendable () -> Void)?) {
        state.withLock { $0.wakers[session] = waker }
    }

    /// Stores the changes of commit `sequence`.
    func record(_ changes: TransactionChanges, sequence: UInt64) {
        state.withLock { state in
            guard state.observerCount > 0 else { return }
            state.commits[sequence] = changes
            if state.commits.count > Self.retainedCommits, let oldest = state.commits.keys.min() {
                state.commits[oldest] = nil
            }
        }
    }

    /// Forgets the changes recorded for a commit that failed.
    func withdraw(sequence: UInt64) {
        state.withLock { $0.commits[sequence] = nil }
    }

    /// The merged changes of the commits after `old` up to and including
    /// `new`; `nil` when one of them was not captured in this process.
    func changes(after old: UInt64, through new: UInt64) -> TransactionChanges? {
        guard new > old else { return TransactionChanges() }
        return state.withLock { state in
            var merged = TransactionChanges()
            var sequence = old + 1
            while sequence <= new {
                guard let changes = state.commits[sequence] else { return nil }
                merged.merge(changes)
                sequence += 1
            }
            return merged
        }
    }

    /// True the first time it is called for this file in this process (while any vault has it open).
    func claimLaunchCompaction() -> Bool {
        state.withLock { state in
            defer { state.launchCompactionClaimed = true }
            return !state.launchCompactionClaimed
        }
    }

    /// A vault of this process reads version `sequence` (see ``VersionPin``).
    func pin(_ sequence: UInt64) {
        state.withLock { $0.pins[sequence, default: 0] += 1 }
    }

    func unpin(_ sequence: UInt64) {
        state.withLock { state in
            guard let count = state.pins[sequence] else { return }
            state.pins[sequence] = count > 1 ? count - 1 : nil
        }
    }

    /// The versions alive in this process: every one a vault reads, and `latest`.
    func activeVersionCount(latest: UInt64) -> Int {
        state.withLock { state in state.pins.keys.count + (state.pins[latest] == nil ? 1 : 0) }
    }

    /// Tells every observing session but `committer` that a commit happened.
    func wakeObservers(except committer: ObjectIdentifier?) {
        let wakers = state.withLock { state in state.wakers.filter { $0.key != committer }.map(\.value) }
        for wake in wakers { wake() }
    }
}

/// Keeps one version counted as alive (a vault's snapshot reads it) until released.
final class VersionPin {
    let sequence: UInt64
    private let coordinator: ChangeCoordinator

    init(_ sequence: UInt64, in coordinator: ChangeCoordinator) {
        self.sequence = sequence
        self.coordinator = coordinator
        coordinator.pin(sequence)
    }

    deinit { coordinator.unpin(sequence) }
}
