import Foundation
import Testing
import VaultKit
import VaultTestSupport
@testable import VaultSync

// The client side of sync through a server, without a server: the wire
// format, the configuration, and a session that cannot reach anything.
// (Sessions against a real server on PostgreSQL are tested in Server/.)

@Suite("The sync wire protocol")
struct SyncWireMessageTests {
    func envelope(sequence: UInt64) throws -> [UInt8] {
        let sealer = try ChangeSetSealer(space: SyncSpaceID(name: "ana"), keys: [0: try SyncKey.generate()], currentKeyID: 0)
        return try sealer.seal(ChangeSet(author: SyncDeviceID(rawValue: 9), sequence: sequence, dependencies: [:], operations: [])).envelope
    }

    @Test("Every message survives encoding and decoding")
    func roundTrip() throws {
        let sealed = try SealedChangeSet(envelope: try envelope(sequence: 4))
        let messages: [SyncWireMessage] = [
            .hello(protocolVersion: 1, cursor: 0), .hello(protocolVersion: .max, cursor: .max),
            .upload(request: 1, envelopes: [try envelope(sequence: 1), try envelope(sequence: 2)]), .upload(request: 2, envelopes: []),
            .download(request: 3, after: 300, limit: 500), .acknowledge(through: 1 << 40),
            .welcome(protocolVersion: 1, head: 12, totalBytes: 9_999),
            .uploaded(request: 1, receipts: [UploadReceipt(device: SyncDeviceID(rawValue: .max), sequence: 1, serverSequence: 2)]),
            .changeSets(request: 3, items: [DeliveredChangeSet(serverSequence: 301, changeSet: sealed)], head: 302, remainingBytes: 77),
            .head(.max),
        ]
        for message in messages { #expect(try SyncWireMessage(decoding: message.encoded()) == message) }
    }

    @Test("Truncated, extended and random bytes are refused with an error, never a crash")
    func malformed() throws {
        let upload = SyncWireMessage.upload(request: 1, envelopes: [try envelope(sequence: 1)]).encoded()
        for length in 0..<upload.count {
            #expect(throws: SyncError.self) { try SyncWireMessage(decoding: Array(upload[..<length])) }
        }
        #expect(throws: SyncError.self) { try SyncWireMessage(decoding: upload + [0]) }
        #expect(throws: SyncError.self) { try SyncWireMessage(decoding: [0x7F]) }
        // An envelope that is not one, inside a page.
        #expect(throws: SyncError.self) {
            try SyncWireMessage(decoding: [66, 1, 1, 1, 3, 1, 2, 3, 0, 0])
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? SyncWireMessage(decoding: bytes)
        }
    }

    @Test("A space id is derived from its name, the same on every device and server")
    func spaceNames() {
        #expect(SyncSpaceID(name: "ana") == SyncSpaceID(name: "ana"))
        #expect(SyncSpaceID(name: "ana") != SyncSpaceID(name: "Ana"))
        #expect(SyncSpaceID(name: "ana").bytes.count == 16)
    }

    @Test("An envelope's clear header names its space, author and sequence")
    func envelopeHeader() throws {
        let header = try EnvelopeHeader(envelope: try envelope(sequence: 42))
        #expect(header.space == SyncSpaceID(name: "ana") && header.device.rawValue == 9 && header.sequence == 42 && header.keyID == 0)
        #expect(throws: SyncError.self) { try EnvelopeHeader(envelope: Array(repeating: 0, count: 200)) }
    }
}

@Suite("The sync section and the session, without a server")
struct SyncSessionClientTests {
    @Test("Server URLs become the sync WebSocket's; other schemes are refused")
    func webSocketURLs() throws {
        let url = { (string: String) throws -> String in try SyncSocketConnector.webSocketURL(for: try #require(URL(string: string))).absoluteString }
        #expect(try url("http://127.0.0.1:8080") == "ws://127.0.0.1:8080/v1/sync")
        #expect(try url("https://sync.example.com/base/") == "wss://sync.example.com/base/v1/sync")
        #expect(throws: SyncSessionError.self) { try url("ftp://example.com") }
        #expect(throws: SyncSessionError.self) { try url("file:///tmp/x") }
    }

    #if !canImport(Darwin)
    @Test("The WebSocket handshake check computes RFC 6455's example")
    func acceptValue() {
        #expect(POSIXWebSocket.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
    #endif

    func configuration(_ directory: TemporaryDirectory, port: Int = 9, key: Data = Data(repeating: 7, count: 32),
                       token: String = "vst1_token") throws -> Vault.Configuration {
        var configuration = Vault.Configuration(fileURL: directory.file("device.vault"), encryptionKey: Data(repeating: 1, count: 64),
                                                objectTypes: syncTestTypes)
        configuration.sync = SyncConfiguration(serverURL: try #require(URL(string: "http://127.0.0.1:\(port)")), space: "ana",
                                               token: token, syncKey: key, reconnectDelay: .milliseconds(10) ... .milliseconds(50))
        return configuration
    }

    @Test("Configurations compare their sync sections, and never print the token or the key")
    func equalityAndDescription() throws {
        let directory = try TemporaryDirectory()
        let one = try configuration(directory)
        #expect(try one == configuration(directory))
        #expect(try one != configuration(directory, token: "vst1_other"))
        #expect(try one != configuration(directory, key: Data(repeating: 8, count: 32)))
        var local = one
        local.sync = nil
        #expect(one != local)
        let text = String(describing: try #require(one.sync))
        #expect(!text.contains("vst1_token") && text.contains("redacted"))
    }

    @Test("A vault without a sync section has no session; with one it has one session per file")
    func sessionPerFile() throws {
        let directory = try TemporaryDirectory()
        _ = try onNewThread {
            var local = Vault.Configuration(fileURL: directory.file("local.vault"), encryptionKey: Data(repeating: 1, count: 64))
            local.objectTypes = syncTestTypes
            #expect(try Vault(configuration: local).syncSession == nil)
            let vault = try Vault(configuration: configuration(directory))
            let session = try #require(vault.syncSession)
            #expect(session.state == .active)
            let again = try Vault(configuration: configuration(directory))
            #expect(again.syncSession === session)
        }
    }

    @Test("A sync key of the wrong length is refused when the vault opens")
    func invalidKey() throws {
        let directory = try TemporaryDirectory()
        _ = try onNewThread {
            #expect(throws: (any Error).self) { try Vault(configuration: configuration(directory, key: Data(repeating: 1, count: 16))) }
        }
    }

    @Test("Offline: commits are kept, waits wait and can be cancelled, pause and resume change the state")
    func offline() async throws {
        let directory = try TemporaryDirectory()
        let (port, reserved) = try refusingPort()
        defer { close(reserved) }
        let states = LockedStates()
        let session = try onNewThread { () -> SyncSession in
            let vault = try Vault(configuration: configuration(directory, port: port))
            try vault.write { vault.add(SyncNote(value: ["id": "n1", "title": "kept"])) }
            return try #require(vault.syncSession)
        }
        let token = session.observeConnectionState { states.append($0) }
        let waiting = Task { try await session.wait(for: .upload) }
        try await _Concurrency.Task.sleep(for: .milliseconds(300))
        #expect(session.connectionState != .connected)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        session.pause()
        #expect(session.state == .inactive)
        session.resume()
        #expect(session.state == .active)
        session.suspend()   // Realm's name for pause()
        #expect(session.state == .inactive)
        session.resume()
        #expect(session.state == .active)
        // Realm's progress token: optional, a NotificationToken that can be kept with the others.
        let progressSeen = LockedCounter()
        var progressToken: NotificationToken? = session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { _ in progressSeen.increment() }
        await progressSeen.wait(forAtLeast: 1)
        progressToken?.invalidate()
        progressToken = nil
        try await _Concurrency.Task.sleep(for: .milliseconds(100))
        #expect(states.all.contains(.connecting) && !states.all.contains(.connected))
        // The commit is in the outbox, waiting for a server.
        #expect(try session.syncedVault.pendingChangeSets().count == 1)
        token.invalidate()
    }

    @Test("reconnect() ends the wait before the next attempt", .timeLimit(.minutes(5)))
    func reconnectNow() async throws {
        let directory = try TemporaryDirectory()
        let (port, reserved) = try refusingPort()
        defer { close(reserved) }
        // Every failed attempt reaches the error handler, which is set before the
        // session starts: a count of attempts that cannot miss the first one.
        let failures = LockedCounter()
        let session = try onNewThread { () -> SyncSession in
            var configuration = try configuration(directory, port: port)
            configuration.sync?.reconnectDelay = .seconds(600) ... .seconds(1_200)
            configuration.sync?.errorHandler = { _ in failures.increment() }
            return try #require(try Vault(configuration: configuration).syncSession)
        }
        // The first attempt fails (nothing listens); the next is 5–15 minutes away.
        // No wall-clock deadlines: in a full parallel run the session's task can wait
        // a long time for a thread (the time limit ends a test that never gets there).
        await failures.wait(forAtLeast: 1)
        #expect(failures.value == 1)
        session.reconnect()
        // One more attempt, long before the backoff would have allowed it.
        await failures.wait(forAtLeast: 2)
        #expect(failures.value == 2)
        #expect(session.lastError == nil, "a refused connection is not a final error")
        withExtendedLifetime(session) {}
    }

    @Test("A final error makes the session invalid (Realm's .invalid); a pause does not hide it; resume() tries again", .timeLimit(.minutes(5)))
    func finalErrorInvalidates() async throws {
        let directory = try TemporaryDirectory()
        let server = try RejectingHTTPServer(statusLine: "HTTP/1.1 401 Unauthorized")
        defer { server.stop() }
        let errors = LockedCounter()
        let session = try onNewThread { () -> SyncSession in
            var configuration = try configuration(directory, port: server.port)
            configuration.sync?.errorHandler = { _ in errors.increment() }
            return try #require(try Vault(configuration: configuration).syncSession)
        }
        // The first attempt is refused (the state before it is racy: not checked here).
        await errors.wait(forAtLeast: 1)
        #expect(session.state == .invalid)
        guard case .unauthorized = session.lastError else {
            Issue.record("expected unauthorized, got \(String(describing: session.lastError))")
            return
        }
        session.pause()
        #expect(session.state == .invalid, "a paused session that a final error stopped still says so")
        session.resume()
        #expect(session.state == .active || session.state == .invalid)
        // The server still refuses the token: the retry ends where the first attempt did.
        await errors.wait(forAtLeast: 2)
        #expect(session.state == .invalid)
        #expect(server.requests >= 2)
        // Realm's callback wait ends with the final error, on the queue given.
        let queue = DispatchQueue(label: "vaultkit.tests.wait-callback")
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<SyncSessionError?, Never>) in
            session.wait(for: .upload, queue: queue) { error in
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(returning: error as? SyncSessionError)
            }
        }
        guard case .unauthorized = outcome else {
            Issue.record("expected the wait to end with unauthorized, got \(String(describing: outcome))")
            return
        }
    }

    /// A loopback port that refuses connections for as long as the returned
    /// socket stays open: bound, never listening, so no other test's server
    /// can take it meanwhile. Close the socket at the end of the test.
    func refusingPort() throws -> (port: Int, socket: Int32) {
        let bound = try LoopbackSocket.open(listening: false)
        return (bound.port, bound.descriptor)
    }
}

final class LockedStates: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [SyncSession.ConnectionState] = []
    func append(_ state: SyncSession.ConnectionState) { lock.withLock { states.append(state) } }
    var all: [SyncSession.ConnectionState] { lock.withLock { states } }
}

/// A count that tasks can wait on.
final class LockedCounter: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var count = 0
    private var waiters: [(atLeast: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func increment() {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            count += 1
            let ready = waiters.filter { $0.atLeast <= count }.map(\.continuation)
            waiters.removeAll { $0.atLeast <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    var value: Int { lock.withLock { count } }

    /// Returns once the count is at least `target`.
    func wait(forAtLeast target: Int) async {
        await withCheckedContinuation { continuation in
            let reached = lock.withLock { () -> Bool in
                if count >= target { return true }
                waiters.append((target, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}

/// A loopback HTTP server that answers every request with one status line and
/// no body (a sync server that refuses the device, say); it stops with `stop()`.
final class RejectingHTTPServer: @unchecked Sendable {
    // @unchecked: `requestCount` is guarded by `lock`; the socket is set once.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var requestCount = 0

    init(statusLine: String) throws {
        (listener, port) = try LoopbackSocket.open(listening: true)
        let response = Array((statusLine + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").utf8)
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }   // stop() shut the listener down
                var buffer = [UInt8](repeating: 0, count: 4096)
                var head: [UInt8] = []
                while !head.contains(subsequence: [13, 10, 13, 10]) {
                    let count = read(connection, &buffer, buffer.count)
                    guard count > 0 else { break }
                    head += buffer[..<count]
                }
                lock.withLock { requestCount += 1 }
                _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                close(connection)
            }
        }
    }

    /// How many requests were answered.
    var requests: Int { lock.withLock { requestCount } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// A TCP socket bound to a free port of 127.0.0.1.
enum LoopbackSocket {
    /// Binds (and listens, if asked) on a port the system picks; the caller closes the descriptor.
    static func open(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard bound == 0, named == 0, !listening || listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool { firstRange(of: subsequence) != nil }
}
