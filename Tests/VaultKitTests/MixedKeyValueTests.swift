import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// Realm's key-value coding of an AnyRealmValue property gives the payload
// (realm-swift's ObjectAccessorTests: `object["anyCol"] as! String`;
// ModernObjectAccessorTests: `.none` reads back as nil; MigrationTests:
// `newObj["anyCol"] as! String` inside a migration).

final class KVMixed: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var any: AnyVaultValue
    @Persisted var other: KVMixed?
}

enum MixedKVV0 {
    final class KVMigrated: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var any: AnyVaultValue
    }
}

enum MixedKVV1 {
    final class KVMigrated: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var any: AnyVaultValue
        @Persisted var note = ""
    }
}

@Suite("Key-value coding of mixed properties")
struct MixedKeyValueTests {
    @Test("object[\"any\"] is the payload, managed or not, and a payload sets it", arguments: StorageMode.writable)
    func payloads(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("kvc-mixed")
        let vault = try Vault(configuration: mode.configuration(directory, types: [KVMixed.self]))
        let unmanaged = KVMixed(value: ["id": 1, "any": AnyVaultValue.string("hello")])
        #expect(unmanaged["any"] as? String == "hello")
        let target = KVMixed(value: ["id": 2])
        try vault.write { vault.add([unmanaged, target]) }
        let object = unmanaged
        #expect(object["any"] as? String == "hello")
        #expect(object.value(forKey: "any") as? String == "hello")

        let date = Date(timeIntervalSince1970: 1_000)
        let cases: [(AnyVaultValue, (Any?) -> Bool)] = [
            (.int(42), { $0 as? Int == 42 }),
            (.bool(true), { $0 as? Bool == true }),
            (.double(2.5), { $0 as? Double == 2.5 }),
            (.float(1.5), { $0 as? Float == 1.5 }),
            (.data(Data([1, 2])), { $0 as? Data == Data([1, 2]) }),
            (.date(date), { $0 as? Date == date }),
            (.decimal128(Decimal128(stringLiteral: "1.25")), { ($0 as? Decimal128)?.description == "1.25" }),
            (.object(target), { ($0 as? KVMixed)?.id == 2 }),
            (.none, { $0 == nil }),
        ]
        for (value, check) in cases {
            try vault.write { object["any"] = value }
            #expect(check(object["any"]), "\(value) reads back as its payload")
        }
        // Set from a payload; a payload read back sets the same value.
        try vault.write { object.setValue("goodbye", forKey: "any") }
        #expect(object.any == .string("goodbye") && object["any"] as? String == "goodbye")
        try vault.write { target["any"] = object["any"] }
        #expect(target.any == .string("goodbye"))

        // A nested list gives the live List, which sets another property as the same contents.
        try vault.write { object.any = .fromArray([.int(1), .string("two")]) }
        let nested = try #require(object["any"] as? List<AnyVaultValue>)
        #expect(Array(nested) == [.int(1), .string("two")])
        try vault.write { target["any"] = nested }
        #expect(target.any.listValue.map(Array.init) == [.int(1), .string("two")])
        // A collection's key-value coding gives one payload per object.
        let payloads = vault.objects(KVMixed.self).sorted(byKeyPath: "id").value(forKey: "any") as? [Any]
        #expect(payloads?.count == 2 && (payloads?.first as? List<AnyVaultValue>)?.count == 2)
    }

    @Test("a migration's old and new objects give a mixed property's payload")
    func inMigration() throws {
        let directory = try TemporaryDirectory("kvc-mixed-migration")
        let url = directory.file("m.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [MixedKVV0.KVMigrated.self]))
            try vault.write {
                vault.add(MixedKVV0.KVMigrated(value: ["id": 1, "any": AnyVaultValue.string("text")]))
                vault.add(MixedKVV0.KVMigrated(value: ["id": 2, "any": AnyVaultValue.int(7)]))
            }
        }
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1, objectTypes: [MixedKVV1.KVMigrated.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "KVMigrated") { old, new in
                guard let old, let new else { return }
                if let text = old["any"] as? String, new["any"] as? String == text {
                    new["note"] = "string \(text)"
                } else if let number = old["any"] as? Int, new["any"] as? Int == number {
                    new["note"] = "int \(number)"
                    new["any"] = number + 1
                }
            }
        }
        try onNewThread { [configuration] in
            let vault = try Vault(configuration: configuration)
            let objects = vault.objects(MixedKVV1.KVMigrated.self).sorted(byKeyPath: "id")
            #expect(objects.map(\.note) == ["string text", "int 7"])
            #expect(objects.last?.any == .int(8))
        }
    }
}
