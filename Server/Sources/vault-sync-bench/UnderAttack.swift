import Foundation
import HTTPTypes
import Logging
import NIOCore
import SyncServerHarness
import VaultSync
import WSClient

// The round trip a good device sees (commit on one device → observer on another)
// while, from other loopback addresses, others hold 500 idle connections, send 100
// requests' headers a byte at a time (slowloris), or flood the server with messages
// at ten times its rate limit. Each phase measures 300 changes; p50 and p99.

/// 300 round trips writer → reader, in milliseconds.
private func roundTrips(_ writer: QueueDevice, _ arrivals: Shared<Int>, from index: Int) throws -> [Double] {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for step in 0..<300 {
        let before = arrivals.value
        let start = clock.now
        try writer.add("a\(step % 50)", title: "change \(index + step)", rank: index + step)
        guard waitUntil(10, poll: 0.0002, { arrivals.value > before }) else { throw HarnessError("change \(index + step) did not arrive within 10 s") }
        samples.append(milliseconds(start.duration(to: clock.now)))
    }
    return samples
}

/// Keeps `body` running on a thread until `stop` is set.
private func background(_ stop: Shared<Bool>, _ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread { while !stop.value { body() } }
}

func underAttack(postgres: PostgresInstance, folder: URL) async throws {
    let server = try SyncServerProcess(databaseURL: postgres.databaseURL, logLevel: "error")
    defer { server.terminate() }
    let space = "attacks"
    let (writer, reader, arrivals) = try await writerAndReader(space: space, server: server, postgres: postgres, folder: folder)
    func report(_ phase: String, _ samples: [Double]) {
        print(String(format: "attacks      %@: p50 %.1f ms, p99 %.1f ms", phase, percentile(samples, 0.5), percentile(samples, 0.99)))
    }
    report("quiet", try roundTrips(writer, arrivals, from: 0))

    // 500 idle connections, from eight addresses (the per-address cap is 64).
    var idle: [LoopbackConnection] = []
    for index in 0..<500 { idle.append(try LoopbackConnection(port: server.port, from: "127.0.0.\(2 + index % 8)")) }
    report("500 idle connections", try roundTrips(writer, arrivals, from: 1_000))
    idle.removeAll()

    // 100 slowloris connections, reopened as the server closes them.
    let stop = Shared(false)
    for index in 0..<100 {
        let port = server.port
        background(stop) {
            guard let connection = try? LoopbackConnection(port: port, from: "127.0.0.\(20 + index % 4)") else { usleep(100_000); return }
            _ = connection.send("GET /health HTTP/1.1\r\nHost: x\r\n")
            while !stop.value, connection.send("X-Slow: a\r\n") { usleep(500_000) }
        }
    }
    report("100 slowloris connections", try roundTrips(writer, arrivals, from: 2_000))
    stop.update { $0 = true }

    // A token holder flooding at ten times the rate limit (2,000 messages a second), reconnecting when closed.
    let flooding = Shared(false)
    let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: "flood")
    let floodTask = Task {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let download = ByteBuffer(bytes: SyncWireMessage.download(request: 1, after: 0, limit: 1).encoded())
        let hello = ByteBuffer(bytes: SyncWireMessage.hello(protocolVersion: 1, cursor: 0).encoded())
        while !flooding.value {
            _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/v1/sync", configuration: .init(additionalHeaders: headers),
                                                   logger: Logger(label: "flood")) { _, outbound, _ in
                try await outbound.write(.binary(hello))
                while !flooding.value {
                    for _ in 0..<20 { try await outbound.write(.binary(download)) }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
        }
    }
    report("a flood at 10× the rate limit", try roundTrips(writer, arrivals, from: 3_000))
    flooding.update { $0 = true }
    _ = await floodTask.result
    writer.close()
    reader.close()
}
