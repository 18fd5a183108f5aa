import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// realm-swift's ThreadSafeReferenceTests.testInvalidThreadSafeReferenceUsage and
// the @ThreadSafe tests that set the wrapper inside a write: a reference made in
// a write transaction names the version its commit makes, so a receiving vault
// at the older version advances before it resolves, and finds the new object.

@Suite("References made inside a write")
struct ReferenceInWriteTests {
    @Test("an object created in a write resolves in another thread's vault that is at the version before it")
    func createdInWrite() throws {
        let directory = try TemporaryDirectory("reference-in-write")
        let configuration = threadingConfiguration(directory)
        let vault = try Vault(configuration: configuration)
        try vault.write { vault.add(TItem(1, "first")) }
        // A long-lived vault on another thread, at the current version.
        let worker = VaultThread(configuration: configuration)
        #expect(try worker.run { vault in vault.objects(TItem.self).count } == 1)
        let reference = try vault.write { ThreadSafeReference(to: vault.create(TItem.self, value: ["id": 2, "name": "made in the write"])) }
        let listReference = try vault.write { () -> ThreadSafeReference<Results<TItem>> in
            vault.add(TItem(3, "third"))
            return ThreadSafeReference(to: vault.objects(TItem.self).sorted(byKeyPath: "id"))
        }
        let seen = try worker.run { vault in
            [vault.resolve(reference)?.name ?? "nil", vault.resolve(listReference).map { "\($0.count)" } ?? "nil"]
        }
        #expect(seen == ["made in the write", "3"])
    }
}

/// A thread that keeps one vault open across calls, as an app's background worker does.
final class VaultThread: @unchecked Sendable {
    private let configuration: Vault.Configuration
    private let queue = DispatchQueue(label: "vault-thread")
    private var vault: Vault?

    init(configuration: Vault.Configuration) { self.configuration = configuration }

    func run<T: Sendable>(_ body: @escaping (Vault) throws -> T) throws -> T {
        try queue.sync {
            let vault = try self.vault ?? Vault(configuration: configuration, queue: queue)
            self.vault = vault
            return try body(vault)
        }
    }
}
