import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

// Classes a vault stores but this process has no Swift type for (written by
// another app, a tool, an older version): read through the dynamic API from
// the stored schema.

final class RTOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var price = Decimal128(0)
    @Persisted var best: RTOwner?
    @Persisted var tags: List<String>
    @Persisted var friends: List<RTOwner>
    @Persisted var scores: Map<String, Int?>
    @Persisted var home: RTPlace?
    @Persisted var extra: AnyVaultValue
}

final class RTPlace: EmbeddedObject {
    @Persisted var city = ""
}

@Suite("Runtime classes: stored classes without a Swift type, through the dynamic API")
struct RuntimeClassTests {
    @Test("every property kind reads back as a DynamicObject when no model class is registered", arguments: StorageMode.writable)
    func readsStoredClasses(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("runtime-classes")
        var configuration = mode.configuration(directory, types: [RTOwner.self])
        let born = Date(timeIntervalSince1970: 1_000_000)
        let writer = try Vault(configuration: configuration)
        try writer.write {
            let a = RTOwner(value: ["id": 1, "name": "a", "born": born, "price": try Decimal128(string: "12.5")])
            let b = RTOwner(value: ["id": 2, "name": "b", "nickname": "bee", "best": a, "tags": ["x", "y"], "friends": [a],
                                    "scores": ["k": 3, "n": nil], "home": RTPlace(value: ["city": "Oslo"]), "extra": AnyVaultValue.string("mixed")])
            writer.add([a, b])
            // As if another app had written the file: no Swift type names recorded.
            try writer.withDatabase { db in try db.execute("DELETE FROM _vaultkit_metadata WHERE key LIKE 'swiftType:%'") }
        }
        // A session of its own (the writer's registered RTOwner), with no model class given.
        configuration.objectTypes = nil
        let reader = try Vault(configuration: configuration)
        #expect(reader.schema["RTOwner"] == nil, "no model class registered RTOwner here")
        let runtime = try #require(reader.dynamicSchema(named: "RTOwner"))
        #expect(runtime.properties.map(\.name) == ["id", "name", "nickname", "born", "price", "best", "tags", "friends", "scores", "home", "extra"],
                "the declaration order, as recorded")
        #expect(runtime.properties.first { $0.name == "home" }?.isEmbeddedLink == true)
        #expect(runtime.primaryKeyProperty?.name == "id")
        #expect(reader.storedSchema.objectSchema.map(\.className) == ["RTOwner", "RTPlace"])
        #expect(reader.storedSchema["RTPlace"]?.isEmbedded == true)
        let owners = reader.dynamicObjects("RTOwner").sorted(byKeyPath: "id")
        #expect(owners.count == 2)
        let b = try #require(reader.dynamicObject(ofType: "RTOwner", forPrimaryKey: 2))
        #expect(b["name"] as? String == "b" && b["nickname"] as? String == "bee")
        #expect((b["best"] as? DynamicObject)?["name"] as? String == "a")
        #expect((b["tags"] as? List<String>).map(Array.init) == ["x", "y"])
        #expect((b["friends"] as? List<DynamicObject>)?.first?["id"] as? Int == 1)
        let scores = try #require(b["scores"] as? Map<String, Int?>)
        #expect(scores["k"] == .some(3) && scores["n"] == .some(nil) && scores.count == 2)
        #expect((b["home"] as? ObjectBase)?["city"] as? String == "Oslo")
        #expect(b["extra"] as? String == "mixed", "a mixed property gives its payload, as Realm's does")
        let a = try #require(owners.first)
        #expect(a["born"] as? Date == born)
        #expect((a["price"] as? Decimal128)?.description == "12.5")
        #expect(a["nickname"] == nil)
        withExtendedLifetime(writer) {}
    }
}
