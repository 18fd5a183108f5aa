import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Realm's ObjectCreationTests.testAddObjectCycle: objects added with links to
// each other are freed once the app lets go of them; and
// CustomObjectCreationTests.testInvalidDefaultInit: a failable custom type with
// no value for its stored type's default is fine in a property that has an
// initial value of its own.

final class CycleNode: Object {
    @Persisted var name = ""
    @Persisted var next: CycleNode?
    @Persisted var any: AnyVaultValue
}

/// A web address stored as its string; the empty string is not one.
struct SiteAddress: FailableCustomPersistable, Equatable {
    typealias PersistedType = String
    let text: String
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("https://") else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

final class Bookmark: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var site = SiteAddress(persistedValue: "https://example.org") ?? SiteAddress(persistedValue: "https://")!
    @Persisted var mirror: SiteAddress?
}

@Suite("Objects once added")
struct AddedObjectLifetimeTests {
    @Test("objects added with links (and mixed links) to each other are freed, and so is their vault", arguments: StorageMode.writable)
    func cyclesAreFreed(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("added-cycles")
        weak var weakA: CycleNode?
        weak var weakB: CycleNode?
        weak var weakC: CycleNode?
        weak var weakVault: Vault?
        try {
            let vault = try Vault(configuration: mode.configuration(directory, types: [CycleNode.self]))
            weakVault = vault
            let (a, b, c) = (CycleNode(value: ["name": "a"]), CycleNode(value: ["name": "b"]), CycleNode(value: ["name": "c"]))
            a.next = b
            b.next = a
            b.any = .object(c)
            c.any = .object(b)
            (weakA, weakB, weakC) = (a, b, c)
            try vault.write { vault.add(a) }
            // Still read through the vault, links included.
            #expect(a.next?.name == "b" && a.next?.next?.name == "a")
            #expect(b.any.object(CycleNode.self)?.name == "c" && c.any.object(CycleNode.self)?.name == "b")
            #expect(vault.objects(CycleNode.self).count == 3)
        }()
        #expect(weakA == nil && weakB == nil && weakC == nil, "the added objects are freed")
        #expect(weakVault == nil, "and nothing keeps their vault open")
    }

    @Test("a failable custom type with no default value of its own works in a property with an initial value")
    func failableCustomDefault() throws {
        let directory = try TemporaryDirectory("failable-default")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [Bookmark.self]))
        let bookmark = Bookmark(value: ["id": 1])
        #expect(bookmark.site.text == "https://example.org")
        try vault.write {
            vault.add(bookmark)
            vault.create(Bookmark.self, value: ["id": 2, "site": SiteAddress(persistedValue: "https://two.example")!])
        }
        #expect(vault.object(ofType: Bookmark.self, forPrimaryKey: 1)?.site.text == "https://example.org")
        #expect(vault.object(ofType: Bookmark.self, forPrimaryKey: 2)?.site.text == "https://two.example")
        #expect(vault.object(ofType: Bookmark.self, forPrimaryKey: 2)?.mirror == nil)
    }
}
