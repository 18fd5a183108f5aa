import Foundation
import SyncServerHarness
import Testing
import VaultKit
import VaultSync

@Suite("Devices syncing through a server on PostgreSQL", .serialized)
struct EndToEndTests {
    @Test("A change made on one device appears on the other")
    func changeReachesOtherDevice() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let tablet = try OpenDevice(try fixture.device("tablet"))
        let heard = Shared<[String]>([])
        try tablet.observeTasks { inserted, _ in heard.update { $0 += inserted } }
        try phone.add("t1", title: "Call Ana")
        try await phone.session.wait(for: .upload)
        try await tablet.session.wait(for: .download)
        #expect(try tablet.titles() == ["Call Ana"])
        // The tablet's observer heard the remote insertion, like a local one.
        #expect(try await eventually { heard.value == ["Call Ana"] })

        try tablet.add("t2", title: "Buy milk")
        try await tablet.session.wait(for: .upload)
        try await phone.session.wait(for: .download)
        #expect(try phone.titles() == ["Buy milk", "Call Ana"])
        #expect(try phone.session.connectionState == .connected)
        phone.close()
        tablet.close()
    }
}

extension EndToEndTests {
    @Test("Progress notifications report the bytes each way, and outstanding-work ones end complete")
    func progress() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let tablet = try OpenDevice(try fixture.device("tablet"))
        try phone.session.pause()
        for index in 0..<50 { try phone.add("p\(index)", title: "task \(index)") }
        let uploads = Shared<[SyncSession.Progress]>([])
        let downloads = Shared<[SyncSession.Progress]>([])
        let uploadToken = try phone.session.addProgressNotification(for: .upload, mode: .reportIndefinitely) { progress in
            uploads.update { $0.append(progress) }
        }
        let downloadToken = try tablet.session.addProgressNotification(for: .download, mode: .forCurrentlyOutstandingWork) { progress in
            downloads.update { $0.append(progress) }
        }
        try phone.session.resume()
        try await phone.session.wait(for: .upload)
        try await tablet.session.wait(for: .download)
        #expect(try await eventually { uploads.value.last?.isTransferComplete == true && (uploads.value.last?.transferredBytes ?? 0) > 1_000 })
        // Registered with nothing outstanding: it reports complete at once and stops.
        #expect(try await eventually { downloads.value.first?.isTransferComplete == true })
        let again = Shared<[SyncSession.Progress]>([])
        let laterToken = try tablet.session.addProgressNotification(for: .download, mode: .reportIndefinitely) { progress in
            again.update { $0.append(progress) }
        }
        try phone.add("late", title: "late task")
        try await phone.session.wait(for: .upload)
        try await tablet.session.wait(for: .download)
        #expect(try await eventually { (again.value.last?.transferredBytes ?? 0) > (again.value.first?.transferredBytes ?? 0) })
        #expect(again.value.allSatisfy { $0.progressEstimate >= 0 && $0.progressEstimate <= 1 })
        for token in [uploadToken, downloadToken, laterToken] { token?.invalidate() }
        phone.close()
        tablet.close()
    }

    @Test("A change set over the server's limit stops the session with changeSetTooLarge, told to the error handler")
    func changeSetTooLarge() async throws {
        let fixture = try ServerFixture(servers: 0)
        fixture.servers.append(try SyncServerProcess(databaseURL: fixture.postgres.databaseURL, arguments: ["--max-message-bytes", "65536"]))
        let errors = Shared<[SyncSessionError]>([])
        let phone = try OpenDevice(try fixture.device("phone"))
        try phone.session.errorHandler = { error in errors.update { $0.append(error) } }
        try phone.session.pause()
        try phone.run { vault in
            try vault.write { for index in 0..<2_000 { vault.add(SyncedTask(value: ["id": "p\(index)", "title": "task \(index)"])) } }
        }
        try phone.session.resume()
        await #expect(throws: SyncSessionError.self) { try await phone.session.wait(for: .upload) }
        guard case .changeSetTooLarge = try phone.session.lastError else {
            Issue.record("expected changeSetTooLarge, got \(String(describing: try phone.session.lastError))")
            return
        }
        #expect(try phone.session.state == .invalid)
        #expect(try await eventually { errors.value.contains { if case .changeSetTooLarge = $0 { return true } else { return false } } })
        phone.close()
    }

    @Test("Two server processes on one database: a change uploaded to one is pushed by the other")
    func twoServers() async throws {
        let fixture = try ServerFixture(servers: 2)
        let phone = try OpenDevice(try fixture.device("phone", server: 0))
        let tablet = try OpenDevice(try fixture.device("tablet", server: 1))
        // The tablet only listens: the change must reach it by the push of the other process.
        try await tablet.session.wait(for: .download)
        try phone.add("t1", title: "From server 0")
        try await phone.session.wait(for: .upload)
        #expect(try await eventually { try tablet.titles() == ["From server 0"] })
        phone.close()
        tablet.close()
    }

    @Test("A revoked token stops the device: unauthorized, invalid, nothing more uploaded")
    func revokedToken() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let errors = Shared<[SyncSessionError]>([])
        try phone.session.errorHandler = { error in errors.update { $0.append(error) } }
        try phone.add("t1", title: "Before revocation")
        try await phone.session.wait(for: .upload)
        try SyncServerProcess.revokeToken(databaseURL: fixture.postgres.databaseURL, space: fixture.space, device: "phone")
        try await Task.sleep(for: .milliseconds(1_100))
        try phone.add("t2", title: "After revocation")
        await #expect(throws: SyncSessionError.self) { try await phone.session.wait(for: .upload) }
        #expect(try phone.session.state == .invalid)
        #expect(try await eventually { errors.value.contains { if case .unauthorized = $0 { return true } else { return false } } })
        guard case .unauthorized = try phone.session.lastError else {
            Issue.record("expected unauthorized, got \(String(describing: try phone.session.lastError))")
            return
        }
        let stored = try fixture.postgres.psql("SELECT count(*) FROM vault_sync_log").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stored == "1")
        phone.close()
    }

    @Test("A device offline for 1,000 commits catches up, and so do the others")
    func offlineThousandCommits() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let tablet = try OpenDevice(try fixture.device("tablet"))
        try phone.session.pause()
        #expect(try phone.session.state == .inactive)
        try phone.run { vault in
            for index in 0..<1_000 {
                try vault.write { vault.add(SyncedTask(value: ["id": "p\(index)", "title": "offline \(index)", "rank": index])) }
            }
        }
        try tablet.add("t-online", title: "online meanwhile")
        try await tablet.session.wait(for: .upload)
        try phone.session.resume()
        try await phone.session.wait(for: .upload)
        try await phone.session.wait(for: .download)
        try await tablet.session.wait(for: .download)
        let expected = try phone.titles()
        #expect(expected.count == 1_001)
        #expect(try tablet.titles() == expected)
        phone.close()
        tablet.close()
    }

    @Test("Nothing the server stores or logs holds a value the devices wrote")
    func serverHoldsNoPlaintext() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let tablet = try OpenDevice(try fixture.device("tablet"))
        let markers = (0..<20).map { "SECRET-\($0)-\(UUID().uuidString.prefix(8))" }
        for (index, marker) in markers.enumerated() {
            try (index.isMultiple(of: 2) ? phone : tablet).add("m\(index)", title: marker)
        }
        try await phone.session.wait(for: .upload)
        try await tablet.session.wait(for: .upload)
        try await phone.session.wait(for: .download)
        #expect(try phone.titles().count == 20)
        let tables = try fixture.postgres.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            .split(separator: "\n").map(String.init)
        #expect(tables.contains("vault_sync_log") && tables.contains("vault_sync_tokens"))
        var everything = ""
        for table in tables {
            everything += try fixture.postgres.psql("SELECT t::text FROM \(table) t")
            everything += try fixture.postgres.psql("SELECT encode(convert_to(t::text, 'UTF8'), 'escape') FROM \(table) t")
        }
        everything += try fixture.postgres.psql("SELECT encode(envelope, 'escape') FROM vault_sync_log")
        everything += (try? String(contentsOf: fixture.servers[0].logFile, encoding: .utf8)) ?? ""
        #expect(everything.contains("vault_sync") || !everything.isEmpty)
        for marker in markers { #expect(!everything.contains(marker)) }
        #expect(!everything.contains(try fixture.token("x").prefix(12)))
        phone.close()
        tablet.close()
    }

    @Test("A server killed mid-upload and restarted, then PostgreSQL restarted: devices converge, nothing acknowledged is lost")
    func serverAndDatabaseRestarts() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        let tablet = try OpenDevice(try fixture.device("tablet"))
        for round in 0..<3 {
            let writer = Task.detached {
                for index in 0..<60 {
                    try phone.add("r\(round)-\(index)", title: "round \(round) task \(index)")
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            try await Task.sleep(for: .milliseconds(40))
            if round == 1 {
                fixture.postgres.stopServer()
                try await Task.sleep(for: .milliseconds(300))
                try fixture.postgres.start()
            } else {
                fixture.servers[0].kill()
                try await Task.sleep(for: .milliseconds(200))
                try fixture.servers[0].start()
            }
            try await writer.value
        }
        try await phone.session.wait(for: .upload)
        try await tablet.session.wait(for: .download)
        let titles = try phone.titles()
        #expect(titles.count == 180)
        #expect(try tablet.titles() == titles)
        phone.close()
        tablet.close()
    }
}

/// Polls `condition` every 20 ms for up to `seconds`.
func eventually(_ seconds: Double = 10, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

extension EndToEndTests {
    /// Opens `configuration` with `Vault.asyncOpen` and returns the task titles the
    /// vault it hands out holds at once (nothing refreshed, nothing waited for), or its error.
    private func asyncOpenTitles(_ configuration: Vault.Configuration) async -> Swift.Result<[String], any Error> {
        let queue = DispatchQueue(label: "async-open-callback")
        return await withCheckedContinuation { continuation in
            Vault.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
                continuation.resume(returning: result.map { vault in vault.objects(SyncedTask.self).map(\.title).sorted() })
            }
        }
    }

    @Test("asyncOpen on a new device hands out the vault once the server's objects are in it", .timeLimit(.minutes(2)))
    func asyncOpenDownloadsFirst() async throws {
        let fixture = try ServerFixture()
        let phone = try OpenDevice(try fixture.device("phone"))
        for index in 1...3 { try phone.add("t\(index)", title: "Task \(index)") }
        try await phone.session.wait(for: .upload)
        let tablet = try fixture.device("tablet")
        let titles = try await asyncOpenTitles(tablet.configuration).get()
        #expect(titles == ["Task 1", "Task 2", "Task 3"], "the first open already shows the user's data, as Realm's asyncOpen")
        phone.close()
    }

    @Test("asyncOpen with a token the server has revoked fails with unauthorized instead of waiting", .timeLimit(.minutes(2)))
    func asyncOpenRefused() async throws {
        let fixture = try ServerFixture()
        let device = try fixture.device("revoked")
        try SyncServerProcess.revokeToken(databaseURL: fixture.postgres.databaseURL, space: fixture.space, device: "revoked")
        guard case .failure(let error) = await asyncOpenTitles(device.configuration) else {
            Issue.record("asyncOpen with a revoked token handed out a vault")
            return
        }
        guard case .unauthorized? = error as? SyncSessionError else {
            Issue.record("expected unauthorized, got \(error)")
            return
        }
    }
}
