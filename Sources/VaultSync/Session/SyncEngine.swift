import Foundation

// MARK: - The session's loop
//
// One task per session: connect, say hello with the download position, then
// alternate upload and download rounds until the connection drops, then
// wait (1/4 s doubling to 30 s, ±50 % jitter) and connect again. A round:
//
//   upload    the outbox (after the commits since the last round become a
//             change set), sealed, in messages of at most 1,000 change sets
//             and 8 MiB; the outbox is emptied up to what the server's
//             receipts acknowledge.
//   download  pages after the stored position until the server's head; each
//             page is opened and merged in one write transaction that also
//             stores the new position, then acknowledged to the server.
//
// Then it sleeps until something happens: a local commit (the commit
// recorder wakes it), a head notice from the server, a `wait(for:)`, a pause.
// Vault work runs on a serial queue of the session's, never on the caller's.
//
// Every step is safe to interrupt: an upload whose receipts were lost is
// sent again and stored once; a page whose merge did not commit is downloaded
// again from the stored position.

/// Moves a session's change sets (see the essay above).
final class SyncEngine: @unchecked Sendable {
    private let synced: SyncedVault
    private let configuration: SyncConfiguration
    private let status: SessionStatus
    private let vaultQueue = DispatchQueue(label: "VaultSync.session.vault")
    private let signal = WakeSignal()
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var socket: (any SyncSocket)?
    private var knownHead: UInt64 = 0
    /// The head known when reading stopped at an entry this device cannot open yet: the
    /// session idles until the log grows past it (a key may come with a later entry).
    private var stalledHead: UInt64?
    /// Set by reconnectNow(): the next attempt waits as after a success.
    private var resetBackoff = false
    private var uploadedBytes = 0
    private var uploadableBytes = 0
    private var downloadedBytes = 0

    static let maxMessageBytes = 40 << 20
    static let uploadBatchBytes = 8 << 20
    static let uploadBatchCount = 1_000
    static let pageSize: UInt32 = 500

    init(synced: SyncedVault, configuration: SyncConfiguration, status: SessionStatus) {
        self.synced = synced
        self.configuration = configuration
        self.status = status
    }

    func start() {
        lock.withLock {
            guard task == nil else { return }
            task = Task.detached { [self] in await run() }
        }
    }

    func stop() {
        lock.withLock { task }?.cancel()
        disconnect()
        signal.wake()
    }

    func wake() { signal.wake() }

    /// Ends the wait before the next connection attempt, and starts the backoff over.
    func reconnectNow() {
        lock.withLock { resetBackoff = true }
        signal.wake()
    }

    /// Drops the connection (the loop notices and, unless paused, reconnects).
    func disconnect() {
        lock.withLock { socket }?.close()
        signal.wake()
    }

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            if status.isPaused || status.finalError != nil {
                status.setConnection(.disconnected)
                await signal.wait()
                continue
            }
            status.setConnection(.connecting)
            do {
                let socket = try await SyncSocketConnector.connect(serverURL: configuration.serverURL, token: configuration.token,
                                                                   maxMessageBytes: Self.maxMessageBytes)
                lock.withLock { self.socket = socket }
                defer {
                    socket.close()
                    lock.withLock { self.socket = nil }
                }
                try await serve(socket) { failures = 0 }
            } catch is CancellationError {
                break
            } catch {
                // A pause closes the connection on purpose: not an error to report.
                if !status.isPaused { status.report(Self.sessionError(error)) }
            }
            status.setConnection(.disconnected)
            guard !Task.isCancelled, !status.isPaused, status.finalError == nil else { continue }
            await signal.wait(timeout: backoff(failures))
            failures += 1
            if lock.withLock({ () -> Bool in defer { resetBackoff = false }; return resetBackoff }) { failures = 0 }
        }
        status.setConnection(.disconnected)
    }

    static func sessionError(_ error: any Error) -> SyncSessionError {
        switch error {
        case let error as SyncSessionError: return error
        case let error as SyncError: return .sync(error)
        default: return .connectionFailed("\(error)")
        }
    }

    /// The wait before reconnection attempt `failures` + 1.
    private func backoff(_ failures: Int) -> Duration {
        let range = configuration.reconnectDelay
        let base = range.lowerBound * (1 << min(failures, 16))
        let capped = min(base, range.upperBound)
        return capped * Double.random(in: 0.5...1.5)
    }

    /// One connection: handshake, then rounds until it breaks.
    private func serve(_ socket: any SyncSocket, connected: () -> Void) async throws {
        let replies = ReplyChannel()
        let reader = Task.detached { [status, signal] in
            do {
                while true {
                    let message = try SyncWireMessage(decoding: try await socket.receive())
                    if case .head(let head) = message {
                        self.lock.withLock { self.knownHead = max(self.knownHead, head) }
                        signal.wake()
                    } else {
                        replies.deliver(message)
                    }
                }
            } catch {
                replies.fail(error)
                _ = status
                signal.wake()
            }
        }
        defer { reader.cancel() }

        let cursor = try await onVault { try self.synced.serverCursor() }
        try await socket.send(SyncWireMessage.hello(protocolVersion: SyncWireMessage.protocolVersion, cursor: cursor).encoded())
        guard case .welcome(let version, let head, _) = try await replies.next() else { throw SyncSessionError.connectionFailed("the server did not answer hello") }
        if configuration.identity != nil, version < 2 {
            throw SyncSessionError.unsupportedProtocol("the server speaks sync protocol \(version), and a device with an identity needs 2 (signed spaces): update vault-sync-server")
        }
        if let identity = configuration.identity {
            // The server binds this token's device to these keys and checks every signed upload with them.
            let keys = identity.publicKeys
            let signature = identity.sign(SyncWireMessage.registrationMessage(space: SyncSpaceID(name: configuration.space), keys: keys), context: .registration)
            try await socket.send(SyncWireMessage.register(keys: keys, signature: signature).encoded())
        }
        lock.withLock { knownHead = max(knownHead, head) }
        status.setConnection(.connected)
        connected()

        var request: UInt64 = 0
        var downloadsAsked: UInt64 = 0
        while true {
            try Task.checkCancellation()
            if status.isPaused { return }
            let commitGeneration = status.commitGeneration
            let downloadGeneration = status.downloadRequestGeneration
            try await upload(socket, replies, &request)
            status.uploaded(through: commitGeneration)
            // Past the known head, or once more when a wait(for: .download) asks for the server's latest.
            try await download(socket, replies, &request, force: downloadGeneration > downloadsAsked)
            downloadsAsked = downloadGeneration
            status.downloaded(through: downloadGeneration)
            // Sleep until a commit, a head notice, a wait or a pause, unless one came during the round.
            let cursor = try await onVault { try self.synced.serverCursor() }
            let idle = commitGeneration == status.commitGeneration && downloadGeneration == status.downloadRequestGeneration
                && lock.withLock({ knownHead <= cursor || stalledHead.map { knownHead <= $0 } == true })
            if idle { await signal.wait() }
            if replies.isBroken { _ = try await replies.next() }
        }
    }

    private func upload(_ socket: any SyncSocket, _ replies: ReplyChannel, _ request: inout UInt64) async throws {
        let sealed = try await onVault { () throws -> [SealedChangeSet] in try self.synced.sealedPendingEntries() }
        if let waiting = try await onVault({ try self.synced.uploadWaitReason() }) { status.reportOnce(.awaitingMembership(waiting)) }
        guard !sealed.isEmpty else { return }
        let total = sealed.reduce(0) { $0 + $1.envelope.count }
        let progress = lock.withLock { () -> SyncSession.Progress in
            // What is uploaded plus what is pending now: a round cut short by a lost
            // connection leaves its unsent change sets pending, and the next round
            // counts them again; adding would count them twice, and the progress
            // would never reach complete.
            uploadableBytes = uploadedBytes + total
            return SyncSession.Progress(transferredBytes: uploadedBytes, transferrableBytes: uploadableBytes)
        }
        status.progress(.upload, progress)
        var start = 0
        while start < sealed.count {
            var end = start
            var bytes = 0
            while end < sealed.count, end - start < Self.uploadBatchCount, end == start || bytes + sealed[end].envelope.count <= Self.uploadBatchBytes {
                bytes += sealed[end].envelope.count
                end += 1
            }
            request += 1
            let batch = Array(sealed[start..<end])
            try await socket.send(SyncWireMessage.upload(request: request, envelopes: batch.map(\.envelope)).encoded())
            guard case .uploaded(let replied, let receipts) = try await replies.next(), replied == request else {
                throw SyncSessionError.connectionFailed("the server answered an upload out of turn")
            }
            let mine = receipts.filter { $0.device == synced.device }.map(\.sequence)
            let expected = Set(batch.map(\.sequence))
            guard Set(mine) == expected, !mine.isEmpty else {
                throw SyncSessionError.connectionFailed("the server's receipts do not match the upload")
            }
            try await onVault { try self.synced.acknowledgeUploaded(mine) }
            let progress = lock.withLock { () -> SyncSession.Progress in
                uploadedBytes += bytes
                return SyncSession.Progress(transferredBytes: uploadedBytes, transferrableBytes: uploadableBytes)
            }
            status.progress(.upload, progress)
            start = end
        }
    }

    private func download(_ socket: any SyncSocket, _ replies: ReplyChannel, _ request: inout UInt64, force: Bool) async throws {
        // Entries quarantined earlier are tried again first: a key or an update may have arrived since.
        _ = try await onVault { try self.synced.retryQuarantined() }
        if try await onVault({ try self.synced.needsKey() }) {
            // A device that joins finds its key box in the log's headers before it reads anything.
            guard try await findKey(socket, replies, &request, after: 0) else {
                lock.withLock { stalledHead = knownHead }
                status.reportOnce(.awaitingMembership("this device has not been added to the space yet: show an owner its join request"))
                return
            }
        }
        var cursor = try await onVault { try self.synced.serverCursor() }
        var askAnyway = force
        while askAnyway || cursor < lock.withLock({ knownHead }) {
            askAnyway = false
            request += 1
            try await socket.send(SyncWireMessage.download(request: request, after: cursor, limit: Self.pageSize).encoded())
            guard case .changeSets(let replied, let items, let head, let remaining) = try await replies.next(), replied == request else {
                throw SyncSessionError.connectionFailed("the server answered a download out of turn")
            }
            lock.withLock { knownHead = max(knownHead, head) }
            guard let last = items.last else { break }
            // A page continues the log from the stored position, without gaps.
            for (offset, item) in items.enumerated() where item.serverSequence != cursor + UInt64(offset) + 1 {
                throw SyncSessionError.connectionFailed("the server's page has a gap at \(item.serverSequence)")
            }
            let bytes = items.reduce(0) { $0 + $1.changeSet.envelope.count }
            // Entries are judged in order; those that do not authenticate are kept apart, refused ones recorded.
            let reception = try await onVault { try self.synced.receive(items) }
            let quarantined = reception.quarantined
            for entry in reception.refused { status.report(.refusedChangeSet(entry)) }
            for entry in quarantined { status.report(.quarantinedChangeSet(entry)) }
            if reception.removed { throw SyncSessionError.removedFromSpace }
            if let reason = reception.stopReason, case .unknownKey = reason {} else if let reason = reception.stopReason {
                // A membership entry altered on the way: going on would read the space differently from its members.
                throw SyncSessionError.sync(reason)
            }
            if let stopped = reception.stoppedAt {
                // A membership entry under a key this device lacks: a later entry may share it with it.
                if try await findKey(socket, replies, &request, after: stopped - 1,
                                     opening: items.first { $0.serverSequence == stopped }?.changeSet) {
                    // Read on from what the page stored (the entries before the stop were applied).
                    cursor = try await onVault { try self.synced.serverCursor() }
                    continue
                }
                lock.withLock { stalledHead = knownHead }
                if stopped > cursor + 1 { try await socket.send(SyncWireMessage.acknowledge(through: stopped - 1).encoded()) }
                status.reportOnce(.awaitingMembership("the space's entry at \(stopped) is sealed under a key this device has not been given"))
                return
            }
            cursor = last.serverSequence
            try await socket.send(SyncWireMessage.acknowledge(through: cursor).encoded())
            let progress = lock.withLock { () -> SyncSession.Progress in
                downloadedBytes += bytes
                return SyncSession.Progress(transferredBytes: downloadedBytes, transferrableBytes: downloadedBytes + Int(clamping: remaining))
            }
            status.progress(.download, progress)
        }
        lock.withLock { stalledHead = nil }
        // A removal whose rotation another entry's beat (rule 7) leaves a rotation owed: a writer makes it.
        if try await onVault({ try self.synced.settleKeys() }) { signal.wake() }
    }

    /// Reads the log's membership headers after `after` for a key box of this device's (a
    /// device that joins by invitation holds no key before it; one that stopped at an entry
    /// under a key it lacks may find it shared later): true when it gained a key.
    private func findKey(_ socket: any SyncSocket, _ replies: ReplyChannel, _ request: inout UInt64, after start: UInt64,
                         opening: SealedChangeSet? = nil) async throws -> Bool {
        var after = start
        var headers: [EnvelopeHeader] = []
        while true {
            request += 1
            try await socket.send(SyncWireMessage.download(request: request, after: after, limit: Self.pageSize).encoded())
            guard case .changeSets(let replied, let items, let head, _) = try await replies.next(), replied == request else {
                throw SyncSessionError.connectionFailed("the server answered a download out of turn")
            }
            lock.withLock { knownHead = max(knownHead, head) }
            guard let last = items.last else { break }
            // Only membership entries carry boxes and wrapped keys.
            headers += items.compactMap { try? EnvelopeHeader(envelope: $0.changeSet.envelope) }.filter { $0.kind == .membership }
            after = last.serverSequence
        }
        let found = headers
        return try await onVault { try self.synced.findKey(in: found, opening: opening) }
    }

    /// Runs vault work on the session's queue.
    private func onVault<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            vaultQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
