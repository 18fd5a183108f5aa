import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

/// The test key as the helper process reads it (hex on stdin).
private let testKeyHex = testKey.map { String(format: "%02x", $0) }.joined()

private func ticketVault(_ directory: TemporaryDirectory, file: String = "versions.vault") throws -> Vault {
    try Vault(configuration: Vault.Configuration(fileURL: directory.file(file), encryptionKey: testKey, objectTypes: [Ticket.self]))
}

/// Opens the same vault on a new thread (so a separate instance, with its own
/// connections), runs `body` in a write there and returns the commit sequence it reached.
private func commitOnAnotherThread(_ url: URL, _ body: @escaping @Sendable (Vault) -> Void) throws -> UInt64 {
    try onNewThread {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [Ticket.self]))
        try vault.write { body(vault) }
        return vault.commitSequence
    }
}

@Suite("Versions: snapshot reads, advance points, the commit sequence")
struct VersionTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("versions") }

    @Test("reads between two advance points see one version, whatever another thread commits; refresh() moves to the latest")
    func snapshotUntilRefresh() throws {
        let vault = try ticketVault(directory)
        try vault.write { for id in 1...3 { vault.add(Ticket(value: ["id": id, "title": "t\(id)"])) } }
        let sequence = vault.commitSequence
        let tickets = vault.objects(Ticket.self)
        let first = try #require(vault.object(ofType: Ticket.self, forPrimaryKey: 1))
        #expect(tickets.count == 3 && first.title == "t1")

        let reached = try commitOnAnotherThread(directory.file("versions.vault")) { other in
            other.add(Ticket(value: ["id": 4, "title": "t4"]))
            other.object(ofType: Ticket.self, forPrimaryKey: 1)?.title = "changed"
            if let two = other.object(ofType: Ticket.self, forPrimaryKey: 2) { other.delete(two) }
        }
        #expect(reached == sequence + 1)

        // Still the version read before: counts, iteration, objects, lookups.
        #expect(tickets.count == 3)
        #expect(tickets.map(\.id) == [1, 2, 3])
        #expect(first.title == "t1")
        #expect(vault.object(ofType: Ticket.self, forPrimaryKey: 4) == nil)
        #expect(vault.commitSequence == sequence)

        #expect(vault.refresh())
        #expect(vault.commitSequence == reached)
        #expect(tickets.map(\.id) == [1, 3, 4])
        #expect(first.title == "changed")
        #expect(!vault.refresh(), "nothing new: the version does not move")
    }

    @Test("a write sees the latest commit; after the commit the vault reads its own commit")
    func writeIsAnAdvancePoint() throws {
        let vault = try ticketVault(directory)
        try vault.write { vault.add(Ticket(value: ["id": 1, "title": "one"])) }
        let tickets = vault.objects(Ticket.self)
        #expect(tickets.count == 1)
        _ = try commitOnAnotherThread(directory.file("versions.vault")) { other in
            other.add(Ticket(value: ["id": 2, "title": "two"]))
        }
        #expect(tickets.count == 1)
        try vault.write {
            #expect(tickets.count == 2, "the write transaction sees the other thread's commit")
            vault.add(Ticket(value: ["id": 3, "title": "three"]))
            #expect(tickets.count == 3, "and its own uncommitted insert")
        }
        #expect(tickets.map(\.id) == [1, 2, 3])
        let before = vault.commitSequence
        try vault.write {}
        #expect(vault.commitSequence == before, "an empty write is not a new version")
    }

    @Test("vaults opened on one thread for one file share their instance: one version, each other's writes at once")
    func oneInstancePerThread() throws {
        let first = try ticketVault(directory)
        let second = try ticketVault(directory)
        #expect(first.session === second.session)
        try first.write { first.add(Ticket(value: ["id": 1, "title": "one"])) }
        #expect(second.objects(Ticket.self).count == 1)
        // A different key is never handed the open instance: it opens (and is refused) on its own.
        var wrongKey = first.configuration
        wrongKey.encryptionKey = Data(repeating: 9, count: 64)
        #expect { _ = try Vault(configuration: wrongKey) } throws: { error in
            guard case Vault.Error.invalidDatabase = error else { return false }
            return true
        }
        var readOnly = first.configuration
        readOnly.readOnly = true
        #expect(try Vault(configuration: readOnly).session !== first.session)
    }

    @Test("iterating a Results sees one version while another process commits; refresh() then sees the commit")
    func iterationWhileAnotherProcessCommits() throws {
        let vault = try ticketVault(directory)
        try vault.write { for id in 1...1_000 { vault.add(Ticket(value: ["id": id, "title": "before"])) } }
        let path = directory.file("versions.vault").path
        var seen: [Int] = []
        var titles = Set<String>()
        for (position, ticket) in vault.objects(Ticket.self).enumerated() {
            if position == 10 {
                // Rows inside and beyond the batches still to be read change in another process.
                let output = try runHelper(["execute", path, """
                    UPDATE "Ticket" SET "title" = 'after';
                    DELETE FROM "Ticket" WHERE "_vk_id" BETWEEN 500 AND 600;
                    INSERT INTO "Ticket"("_vk_id", "title") VALUES (5000, 'new');
                    UPDATE _vaultkit_metadata SET value = value + 1 WHERE key = 'commitSequence';
                    """], input: testKeyHex)
                #expect(output.contains("committed"))
            }
            seen.append(ticket.id)
            titles.insert(ticket.title)
        }
        #expect(seen == Array(1...1_000))
        #expect(titles == ["before"])
        #expect(vault.objects(Ticket.self).count == 1_000)

        #expect(vault.refresh())
        let after = vault.objects(Ticket.self)
        #expect(after.count == 1_000 - 101 + 1)
        #expect(Set(after.map(\.title)) == ["after", "new"])
    }

    @Test("maximumNumberOfActiveVersions: a write that would keep too many versions alive throws, naming the limit; refresh() frees them")
    func activeVersionBound() throws {
        var configuration = Vault.Configuration(fileURL: directory.file("bound.vault"), encryptionKey: testKey, objectTypes: [Ticket.self])
        configuration.maximumNumberOfActiveVersions = 2
        let writer = try Vault(configuration: configuration)
        try writer.write { writer.add(Ticket(value: ["id": 1, "title": "a"])) }

        // Two queue-confined vaults left idle, each reading the version of the moment.
        let first = DispatchQueue(label: "vaultkit.tests.pin-1"), second = DispatchQueue(label: "vaultkit.tests.pin-2")
        var idle: [Vault] = []
        try first.sync {
            let vault = try Vault(configuration: configuration, queue: first)
            #expect(vault.objects(Ticket.self).count == 1)
            idle.append(vault)
        }
        try writer.write { writer.add(Ticket(value: ["id": 2, "title": "b"])) }   // versions: the idle one's and the latest
        try second.sync {
            let vault = try Vault(configuration: configuration, queue: second)
            #expect(vault.objects(Ticket.self).count == 2)
            idle.append(vault)
        }
        try writer.write { writer.add(Ticket(value: ["id": 3, "title": "c"])) }   // two pinned, one of them the latest
        #expect(throws: VaultObjectError.tooManyActiveVersions(count: 3, limit: 2)) {
            try writer.write { writer.add(Ticket(value: ["id": 4, "title": "d"])) }
        }
        #expect(!writer.isInWriteTransaction)
        #expect(writer.objects(Ticket.self).count == 3, "the refused write left nothing behind")

        first.sync { _ = idle[0].refresh() }
        try writer.write { writer.add(Ticket(value: ["id": 4, "title": "d"])) }
        #expect(writer.objects(Ticket.self).count == 4)
        first.sync { idle[0].invalidate() }
        second.sync { idle[1].invalidate() }
        withExtendedLifetime(idle) {}
    }
}
