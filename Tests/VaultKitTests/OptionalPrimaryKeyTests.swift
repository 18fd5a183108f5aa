import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// An optional primary key, as realm-swift's PrimaryKeyTests and
// ObjectCreationTests use it: nil is a key like any other. At most one object
// has it, a nil lookup finds that object, and the update policies treat it as
// they treat any key.

final class OPKInt: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var name = ""
}

final class OPKString: Object {
    @Persisted(primaryKey: true) var key: String?
    @Persisted var count = 0
}

@Suite("Optional primary keys: nil is one key")
struct OptionalPrimaryKeyTests {
    let directory: TemporaryDirectory
    let vault: Vault

    init() throws {
        directory = try TemporaryDirectory("optional-primary-key")
        vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("k.vault"), encryptionKey: testKey,
                                                             objectTypes: [OPKInt.self, OPKString.self]))
    }

    @Test("a nil key is found by a nil lookup, and other keys still by theirs")
    func nilLookup() throws {
        try vault.write {
            vault.add(OPKInt(value: ["name": "nil key"]))
            vault.add(OPKInt(value: ["id": 1, "name": "one"]))
            vault.add(OPKString(value: ["count": 3]))
        }
        #expect(vault.object(ofType: OPKInt.self, forPrimaryKey: nil as Int?)?.name == "nil key")
        #expect(vault.object(ofType: OPKInt.self, forPrimaryKey: 1)?.name == "one")
        #expect(vault.object(ofType: OPKInt.self, forPrimaryKey: 2) == nil)
        #expect(vault.object(ofType: OPKString.self, forPrimaryKey: nil as String?)?.count == 3)
        #expect(vault.object(ofType: OPKString.self, forPrimaryKey: "x") == nil)
        #expect(vault.objects(OPKInt.self).filter("id == nil").count == 1)
    }

    @Test("a second object with a nil key is a duplicate key, and the write keeps nothing")
    func secondNilKeyRefused() throws {
        try vault.write { vault.add(OPKInt(value: ["name": "first"])) }
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write {
                vault.add(OPKInt(value: ["id": 5, "name": "rolled back"]))
                vault.add(OPKInt(value: ["name": "second"]))
            }
        }
        guard case .duplicatePrimaryKey(let className, _)? = error else {
            Issue.record("expected duplicatePrimaryKey, got \(String(describing: error))")
            return
        }
        #expect(className == "OPKInt")
        #expect(vault.objects(OPKInt.self).map(\.name) == ["first"])
        let stringError = #expect(throws: VaultObjectError.self) {
            try vault.write {
                vault.create(OPKString.self, value: ["count": 1])
                vault.create(OPKString.self, value: ["key": NSNull(), "count": 2])
            }
        }
        #expect(stringError != nil)
        #expect(vault.objects(OPKString.self).isEmpty)
    }

    @Test("update policies find the object whose key is nil")
    func updatesByNilKey() throws {
        try vault.write { vault.add(OPKInt(value: ["name": "before"])) }
        try vault.write { vault.add(OPKInt(value: ["name": "after add"]), update: .modified) }
        #expect(vault.objects(OPKInt.self).count == 1)
        #expect(vault.object(ofType: OPKInt.self, forPrimaryKey: nil as Int?)?.name == "after add")
        try vault.write { vault.create(OPKInt.self, value: ["id": NSNull(), "name": "after create"], update: .all) }
        #expect(vault.objects(OPKInt.self).map(\.name) == ["after create"])
        // A non-nil key next to it is another object.
        try vault.write { vault.create(OPKInt.self, value: ["id": 0, "name": "zero"], update: .modified) }
        #expect(vault.objects(OPKInt.self).count == 2)
        #expect(vault.object(ofType: OPKInt.self, forPrimaryKey: 0)?.name == "zero")
    }
}
