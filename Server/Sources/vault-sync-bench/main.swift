// vault-sync-bench: sync through a real server on loopback, against the targets of
// the sync-server issue. PostgreSQL and the server are started here, release builds.
//
//   latency      commit on one device → observer fires on another (p50, p99 over 1,000 changes)
//   download     a new device downloads and merges 100,000 objects
//   connections  simulated devices connected to one server process while changes flow: server memory
//   attacks      the commit → observer round trip while others hold idle connections, send
//                headers a byte at a time, or flood the server at ten times the rate limit
import Foundation
import HTTPTypes
import Logging
import NIOCore
import SyncServerHarness
import VaultKit
import VaultSync
import WSClient

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// Resident memory of process `pid`, in MiB (Linux /proc).
func residentMiB(_ pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes / 1024
}

/// Two devices of a new space on `server`, both caught up: a writer, and a reader whose
/// observer counts the changes that arrive.
func writerAndReader(space: String, server: SyncServerProcess, postgres: PostgresInstance,
                     folder: URL) async throws -> (writer: QueueDevice, reader: QueueDevice, arrivals: Shared<Int>) {
    let key = randomBytes(32)
    func device(_ name: String) throws -> QueueDevice {
        let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: name)
        // A folder per space: every section names its devices writer and reader.
        return try QueueDevice(try DeviceSetup(parent: folder.appendingPathComponent(space), name: name, server: server.url, space: space,
                                               token: token, syncKey: key))
    }
    let writer = try device("writer")
    let reader = try device("reader")
    let arrivals = Shared(0)
    try reader.observeTasks { _, _ in arrivals.update { $0 += 1 } }
    try await writer.session.wait(for: .download)
    try await reader.session.wait(for: .download)
    return (writer, reader, arrivals)
}

func latency(server: SyncServerProcess, postgres: PostgresInstance, folder: URL) async throws {
    let (writer, reader, arrivals) = try await writerAndReader(space: "latency", server: server, postgres: postgres, folder: folder)
    var samples: [Double] = []
    let clock = ContinuousClock()
    for index in 0..<1_050 {
        let before = arrivals.value
        let start = clock.now
        try writer.add("k\(index % 50)", title: "change \(index)", rank: index)
        guard waitUntil(10, poll: 0.0002, { arrivals.value > before }) else { throw HarnessError("change \(index) did not arrive within 10 s") }
        if index >= 50 { samples.append(milliseconds(start.duration(to: clock.now))) }
    }
    print(String(format: "latency      commit → observer on another device, %d changes: p50 %.1f ms (target ≤ 50), p99 %.1f ms (target ≤ 200), max %.1f ms",
                 samples.count, percentile(samples, 0.5), percentile(samples, 0.99), samples.max() ?? 0))
    writer.close()
    reader.close()
}

func initialDownload(server: SyncServerProcess, postgres: PostgresInstance, folder: URL, objects: Int) async throws {
    let space = "download"
    let key = randomBytes(32)
    let writerToken = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: "writer")
    let writer = try QueueDevice(try DeviceSetup(parent: folder, name: "dl-writer", server: server.url, space: space, token: writerToken, syncKey: key))
    let batch = 10_000
    for start in stride(from: 0, to: objects, by: batch) {
        try writer.run { vault in
            try vault.write {
                for index in start..<min(objects, start + batch) {
                    vault.add(SyncedTask(value: ["id": "o\(index)", "title": "object \(index)", "rank": index, "tags": ["a", "b"]]))
                }
            }
        }
    }
    try await writer.session.wait(for: .upload)
    let stored = try postgres.psql("SELECT count(*), sum(octet_length(envelope)) FROM vault_sync_log WHERE space = (SELECT space FROM vault_sync_spaces ORDER BY head DESC LIMIT 1)")
    writer.close()

    var times: [Double] = []
    for run in 0..<3 {
        let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: "new-\(run)")
        let setup = try DeviceSetup(parent: folder, name: "dl-new-\(run)", server: server.url, space: space, token: token, syncKey: key)
        let clock = ContinuousClock()
        let start = clock.now
        let device = try QueueDevice(setup)
        try await device.session.wait(for: .download)
        let elapsed = milliseconds(start.duration(to: clock.now)) / 1_000
        let count = try device.run { vault in
            vault.refresh()
            return vault.objects(SyncedTask.self).count
        }
        guard count == objects else { throw HarnessError("the new device holds \(count) objects, not \(objects)") }
        times.append(elapsed)
        device.close()
    }
    let parts = stored.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
    print(String(format: "download     a new device takes in %d objects (%@ change sets, %@ bytes sealed): %.2f s median of 3 (%.2f–%.2f; target ≤ 10 s)",
                 objects, String(parts.first ?? "?"), String(parts.last ?? "?"), percentile(times, 0.5), times.min() ?? 0, times.max() ?? 0))
}

func connections(postgres: PostgresInstance, folder: URL, counts: [Int]) async throws {
    let server = try SyncServerProcess(databaseURL: postgres.databaseURL, logLevel: "warning",
                                       arguments: ["--connections-per-device", "100000"])
    defer { server.terminate() }
    let space = "crowd"
    let key = randomBytes(32)
    let token = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: "crowd")
    guard let pid = server.processIdentifier else { throw HarnessError("no server process") }
    let idle = residentMiB(pid)
    let heads = Shared(0)
    let writerToken = try SyncServerProcess.issueToken(databaseURL: postgres.databaseURL, space: space, device: "writer")
    let writer = try QueueDevice(try DeviceSetup(parent: folder, name: "crowd-writer", server: server.url, space: space, token: writerToken, syncKey: key))
    var clients: [Task<Void, any Error>] = []
    var connected = 0
    var line = "connections  one server process, idle \(String(format: "%.0f", idle)) MiB;"
    for target in counts {
        while connected < target {
            let headers: HTTPFields = [.authorization: "Bearer \(token)"]
            clients.append(Task {
                _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/v1/sync",
                                                      configuration: .init(additionalHeaders: headers), logger: Logger(label: "crowd")) { inbound, outbound, _ in
                    try await outbound.write(.binary(ByteBuffer(bytes: SyncWireMessage.hello(protocolVersion: 1, cursor: 0).encoded())))
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .binary(let buffer) = message, case .head = try? SyncWireMessage(decoding: Array(buffer: buffer)) { heads.update { $0 += 1 } }
                    }
                }
            })
            connected += 1
        }
        try await Task.sleep(for: .seconds(1))
        // Changes flow while they are connected: each must reach every connection as a head notice.
        let before = heads.value
        for index in 0..<10 {
            try writer.add("w\(target)-\(index)", title: "x")
            try await writer.session.wait(for: .upload)
        }
        let reached = waitUntil(30) { heads.value - before >= target * 10 }
        line += String(format: " %d devices: %.0f MiB%@;", target, residentMiB(pid), reached ? "" : " (heads missing)")
    }
    print(line + String(format: " %.1f KiB per connected device", (residentMiB(pid) - idle) * 1024 / Double(max(1, connected))))
    for client in clients { client.cancel() }
    writer.close()
}

func main() async throws {
    let arguments = Set(CommandLine.arguments.dropFirst())
    let all = arguments.isEmpty
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vault-sync-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let postgres = try PostgresInstance()
    defer { postgres.stop() }
    let server = try SyncServerProcess(databaseURL: postgres.databaseURL, logLevel: "warning")
    defer { server.terminate() }
    print("vault-sync-bench: PostgreSQL and vault-sync-server on loopback (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
    if all || arguments.contains("latency") { try await latency(server: server, postgres: postgres, folder: folder) }
    if all || arguments.contains("download") { try await initialDownload(server: server, postgres: postgres, folder: folder, objects: 100_000) }
    if all || arguments.contains("connections") { try await connections(postgres: postgres, folder: folder, counts: [100, 250, 500, 1_000]) }
    if all || arguments.contains("attacks") { try await underAttack(postgres: postgres, folder: folder) }
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("vault-sync-bench: \(error)\n".utf8))
    exit(1)
}
