import Foundation
import SyncServerHarness
import Testing
import VaultKit
import VaultSync

@Suite("Faults: cut connections, killed devices", .serialized)
struct FaultTests {
    @Test("Connections cut at every step of upload and download: devices converge and nothing is lost")
    func cutConnections() async throws {
        let fixture = try ServerFixture()
        // 40 connections cut after 20, 60, 100 … bytes: through the handshake, hello, uploads, receipts, pages, acks.
        let proxy = try CuttingProxy(targetPort: fixture.servers[0].port, budgets: (0..<40).map { 20 + $0 * 40 + ($0 * $0 * 3) })
        let tablet = try OpenDevice(try fixture.device("tablet"))
        for index in 0..<10 { try tablet.add("t\(index)", title: "tablet \(index)") }
        try await tablet.session.wait(for: .upload)

        var phoneSetup = try fixture.device("phone")
        phoneSetup = DeviceSetup(folder: phoneSetup.folder, vaultKey: phoneSetup.vaultKey,
                                 sync: SyncConfiguration(serverURL: try #require(URL(string: "http://127.0.0.1:\(proxy.port)")),
                                                         space: fixture.space, token: phoneSetup.sync.token, syncKey: fixture.syncKey,
                                                         reconnectDelay: .milliseconds(5) ... .milliseconds(40)))
        let phone = try OpenDevice(phoneSetup)
        // Uploads cut short are retried: the progress still ends complete (each byte counted once).
        let uploads = Shared<[SyncSession.Progress]>([])
        let uploadToken = try phone.session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { progress in
            uploads.update { $0.append(progress) }
        }
        for index in 0..<60 {
            try phone.add("p\(index)", title: "phone \(index)")
            if index.isMultiple(of: 3) { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await phone.session.wait(for: .upload)
        try await phone.session.wait(for: .download)
        try await tablet.session.wait(for: .download)
        #expect(proxy.cutCount >= 10)
        #expect(try await eventually { uploads.value.last?.isTransferComplete == true })
        uploadToken?.invalidate()
        let titles = try phone.titles()
        #expect(titles.count == 70)
        #expect(try tablet.titles() == titles)
        // Every change set stored once, however often its upload was cut and retried.
        let stored = try fixture.postgres.psql("SELECT count(*), count(DISTINCT (device, sequence)) FROM vault_sync_log")
        let counts = stored.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        #expect(counts.count == 2 && counts[0] == counts[1])
        phone.close()
        tablet.close()
    }

    @Test("Devices in child processes, one killed mid-write and restarted: every commit it reported arrives")
    func childProcessDevices() async throws {
        let fixture = try ServerFixture()
        let reader = try OpenDevice(try fixture.device("reader"))
        let writerSetup = try fixture.device("writer")
        let description = String(decoding: try JSONEncoder().encode(DeviceDescription(writerSetup)), as: UTF8.self)

        // A first child writes 300 tasks; it is killed (SIGKILL) after a random number of them.
        let child = try ChildDevice(["write", "300", "killed"], input: description)
        let killAfter = Int.random(in: 20...200)
        #expect(child.waitForLine("committed \(killAfter)", timeout: 60))
        child.kill()
        let reported = child.lines.filter { $0.hasPrefix("committed ") }.count
        // A second child reopens the same device, uploads what the first left, downloads, and exits.
        let second = try ChildDevice(["sync"], input: description)
        #expect(second.waitForLine("synced", timeout: 60))
        second.waitForExit()
        try await reader.session.wait(for: .download)
        let titles = try reader.titles()
        // Every commit the killed child reported is there (a commit after the last report may be too).
        #expect(titles.count >= reported && titles.count <= reported + 1)
        for index in 0..<reported { #expect(titles.contains("killed \(index)")) }
        reader.close()
    }
}

extension FaultTests {
    @Test("Clocks an hour apart: concurrent edits converge, and an edit made after seeing another wins over it")
    func skewedClocks() async throws {
        let fixture = try ServerFixture()
        let fast = try OpenDevice(try fixture.device("fast", clockOffset: 3_600_000))
        let slow = try OpenDevice(try fixture.device("slow", clockOffset: -3_600_000))
        // Concurrent edits of one task: both devices end with the same title.
        try fast.add("t", title: "fast's first")
        try slow.add("t", title: "slow's first")
        for device in [fast, slow] { try await device.session.wait(for: .upload) }
        for device in [fast, slow] { try await device.session.wait(for: .download) }
        #expect(try fast.titles() == slow.titles())
        // The slow device, having seen the fast one's edit, edits again: its clock is two hours
        // behind, yet its edit comes after what it has seen, so it wins on both devices.
        try slow.add("t", title: "slow's answer")
        try await slow.session.wait(for: .upload)
        try await fast.session.wait(for: .download)
        #expect(try fast.titles() == ["slow's answer"])
        #expect(try slow.titles() == ["slow's answer"])
        fast.close()
        slow.close()
    }
}

/// SyncDeviceHelper as a child process, its output read line by line.
final class ChildDevice: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var received: [String] = []

    init(_ arguments: [String], input: String) throws {
        process.executableURL = try builtExecutable("SyncDeviceHelper")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data((input + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        let handle = stdout.fileHandleForReading
        Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    lock.withLock { received.append(line) }
                }
            }
        }.start()
    }

    var lines: [String] { lock.withLock { received } }

    func waitForLine(_ prefix: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines.contains(where: { $0.hasPrefix(prefix) }) { return true }
            if !process.isRunning, !lines.contains(where: { $0.hasPrefix(prefix) }) { usleep(50_000); return lines.contains(where: { $0.hasPrefix(prefix) }) }
            usleep(2_000)
        }
        return false
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func waitForExit() { process.waitUntilExit() }
}
