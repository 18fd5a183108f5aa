import Foundation

/// Wakes one waiting task; a wake with nobody waiting is kept for the next wait.
final class WakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    func wake() {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            guard let waiter else {
                pending = true
                return nil
            }
            self.waiter = nil
            return waiter
        }
        waiting?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wakeNow: Bool = lock.withLock {
                if pending {
                    pending = false
                    return true
                }
                waiter = continuation
                return false
            }
            if wakeNow { continuation.resume() }
        }
    }

    /// Waits for a wake or `timeout`, whichever comes first.
    func wait(timeout: Duration) async {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { wake() }
        }
        await wait()
        timer.cancel()
    }
}

/// The server's replies on one connection, in order, for the one task that sends requests.
final class ReplyChannel: @unchecked Sendable {
    private let lock = NSLock()
    private var queued: [SyncWireMessage] = []
    private var failure: (any Error)?
    private var waiter: CheckedContinuation<SyncWireMessage, any Error>?

    func deliver(_ message: SyncWireMessage) {
        let waiting: CheckedContinuation<SyncWireMessage, any Error>? = lock.withLock {
            guard let waiter else {
                queued.append(message)
                return nil
            }
            self.waiter = nil
            return waiter
        }
        waiting?.resume(returning: message)
    }

    func fail(_ error: any Error) {
        let waiting: CheckedContinuation<SyncWireMessage, any Error>? = lock.withLock {
            failure = failure ?? error
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(throwing: error)
    }

    /// Whether the connection broke and every reply before that was taken.
    var isBroken: Bool { lock.withLock { failure != nil && queued.isEmpty } }

    func next() async throws -> SyncWireMessage {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SyncWireMessage, any Error>) in
            let outcome: Result<SyncWireMessage, any Error>? = lock.withLock {
                if !queued.isEmpty { return .success(queued.removeFirst()) }
                if let failure { return .failure(failure) }
                waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
