import Foundation

/// What a sync session shows and waits on, shared by ``SyncSession`` (its
/// public face) and SyncEngine (which moves the data): state, connection,
/// the generations `wait(for:)` compares, and the observers.
///
/// Generations: every local commit raises `committed`; an upload round that
/// began at generation g and left the outbox empty sets `uploaded` to g, so a
/// wait for `.upload` started at g returns once `uploaded >= g`. A wait for
/// `.download` asks for a new download round (`downloadRequested += 1`) and
/// returns when a round that began after the request has reached the
/// server's head (`downloaded`).
final class SessionStatus: @unchecked Sendable {
    private let lock = NSLock()
    private let callbacks = DispatchQueue(label: "VaultSync.session.callbacks")

    private var paused = false
    private(set) var finalErrorStorage: SyncSessionError?
    /// The last error ``reportOnce(_:)`` reported.
    private var lastStateReport: SyncSessionError?
    private var connection = SyncSession.ConnectionState.disconnected
    private var handler: (@Sendable (SyncSessionError) -> Void)?

    /// Raised by every local commit; 1 at start stands for whatever the outbox held then.
    private var committed: UInt64 = 1
    private var uploaded: UInt64 = 0
    private var downloadRequested: UInt64 = 0
    private var downloaded: UInt64 = 0

    private struct Waiter {
        let direction: SyncSession.ProgressDirection
        let ticket: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }
    private var waiters: [Int: Waiter] = [:]

    private struct ProgressObserver {
        let direction: SyncSession.ProgressDirection
        let mode: SyncSession.ProgressMode
        let block: @Sendable (SyncSession.Progress) -> Void
        var target: Int?
    }
    private var progressObservers: [Int: ProgressObserver] = [:]
    private var lastProgress: [SyncSession.ProgressDirection: SyncSession.Progress] = [:]
    private var connectionObservers: [Int: @Sendable (SyncSession.ConnectionState) -> Void] = [:]
    private var nextID = 0

    init(errorHandler: (@Sendable (SyncSessionError) -> Void)?) { handler = errorHandler }

    /// A final error outranks a pause: the session stays stopped at ``SyncSession/resume()`` only if the cause remains.
    var state: SyncSession.State { lock.withLock { finalErrorStorage != nil ? .invalid : paused ? .inactive : .active } }
    var isPaused: Bool { lock.withLock { paused } }
    var connectionState: SyncSession.ConnectionState { lock.withLock { connection } }
    var finalError: SyncSessionError? { lock.withLock { finalErrorStorage } }
    var errorHandler: (@Sendable (SyncSessionError) -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    func setPaused(_ on: Bool) {
        lock.withLock {
            paused = on
            if !on { finalErrorStorage = nil }
        }
    }

    /// Observers are called on `callbacks`, a serial queue, and every call is queued while
    /// `lock` is held: two threads reporting at once queue their calls in the order their
    /// values were recorded, so the last call an observer hears is always the latest value.
    func setConnection(_ state: SyncSession.ConnectionState) {
        lock.withLock {
            guard connection != state else { return }
            connection = state
            for observer in connectionObservers.values { callbacks.async { observer(state) } }
        }
    }

    /// Reports an error; a final one stops the session and fails every waiter.
    /// Reports `error` unless it was the last error reported this way (a state, not an event).
    func reportOnce(_ error: SyncSessionError) {
        let repeated = lock.withLock { () -> Bool in
            defer { lastStateReport = error }
            return lastStateReport == error
        }
        if !repeated { report(error) }
    }

    func report(_ error: SyncSessionError) {
        let (errorHandler, failed): ((@Sendable (SyncSessionError) -> Void)?, [Waiter]) = lock.withLock {
            guard error.isFinal else { return (self.handler, []) }
            finalErrorStorage = error
            defer { waiters.removeAll() }
            return (self.handler, Array(waiters.values))
        }
        for waiter in failed { waiter.continuation.resume(throwing: error) }
        if let errorHandler { callbacks.async { errorHandler(error) } }
    }

    // MARK: Generations and waits

    func localCommitNoted() { lock.withLock { committed += 1 } }
    /// The generation an upload round starting now covers.
    var commitGeneration: UInt64 { lock.withLock { committed } }
    var downloadRequestGeneration: UInt64 { lock.withLock { downloadRequested } }

    func uploaded(through generation: UInt64) {
        resolve { uploaded = max(uploaded, generation) }
    }

    func downloaded(through generation: UInt64) {
        resolve { downloaded = max(downloaded, generation) }
    }

    func ticket(for direction: SyncSession.ProgressDirection) -> UInt64 {
        lock.withLock {
            switch direction {
            case .upload: return committed
            case .download:
                downloadRequested += 1
                return downloadRequested
            }
        }
    }

    func wait(for direction: SyncSession.ProgressDirection, ticket: UInt64) async throws {
        let id = lock.withLock { () -> Int in
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = lock.withLock {
                    if let finalErrorStorage { return .failure(finalErrorStorage) }
                    if satisfied(direction, ticket) { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    waiters[id] = Waiter(direction: direction, ticket: ticket, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func satisfied(_ direction: SyncSession.ProgressDirection, _ ticket: UInt64) -> Bool {
        direction == .upload ? uploaded >= ticket : downloaded >= ticket
    }

    private func resolve(_ update: () -> Void) {
        let ready: [Waiter] = lock.withLock {
            update()
            let done = waiters.filter { satisfied($0.value.direction, $0.value.ticket) }
            for id in done.keys { waiters[id] = nil }
            return Array(done.values)
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    // MARK: Observers

    func addProgressObserver(direction: SyncSession.ProgressDirection, mode: SyncSession.ProgressMode,
                             block: @escaping @Sendable (SyncSession.Progress) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            let current = lastProgress[direction] ?? SyncSession.Progress(transferredBytes: 0, transferrableBytes: 0)
            progressObservers[nextID] = ProgressObserver(direction: direction, mode: mode, block: block,
                                                         target: mode == .forCurrentlyOutstandingWork ? current.transferrableBytes : nil)
            deliver(direction, current, only: nextID)
            return nextID
        }
    }

    func removeProgressObserver(_ id: Int) { lock.withLock { _ = progressObservers.removeValue(forKey: id) } }

    /// Tells the observers of `direction` where it stands.
    func progress(_ direction: SyncSession.ProgressDirection, _ progress: SyncSession.Progress) {
        lock.withLock {
            lastProgress[direction] = progress
            deliver(direction, progress, only: nil)
        }
    }

    /// Queues the calls of the observers of `direction` (or only observer `only`);
    /// `lock` is held, so that observers hear values in the order they were recorded.
    private func deliver(_ direction: SyncSession.ProgressDirection, _ progress: SyncSession.Progress, only: Int?) {
        for (id, observer) in progressObservers where observer.direction == direction && (only == nil || only == id) {
            guard let target = observer.target else {
                callbacks.async { observer.block(progress) }
                continue
            }
            // Outstanding work only: the total is fixed at registration.
            let capped = SyncSession.Progress(transferredBytes: min(progress.transferredBytes, target), transferrableBytes: target)
            callbacks.async { observer.block(capped) }
            if capped.isTransferComplete { progressObservers[id] = nil }
        }
    }

    func addConnectionObserver(_ block: @escaping @Sendable (SyncSession.ConnectionState) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            connectionObservers[nextID] = block
            let current = connection
            callbacks.async { block(current) }
            return nextID
        }
    }

    func removeConnectionObserver(_ id: Int) { lock.withLock { _ = connectionObservers.removeValue(forKey: id) } }
}
