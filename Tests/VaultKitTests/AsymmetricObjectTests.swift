import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

final class ReadingPlace: EmbeddedObject {
    @Persisted var name = ""
}

final class Reading: AsymmetricObject {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var celsius = 0.0
    @Persisted var place: ReadingPlace?
}

final class BadReading: AsymmetricObject {
    @Persisted var celsius = 0.0
    @Persisted var station: TItem?
}

@Suite("AsymmetricObject: write-only records")
struct AsymmetricObjectTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("asymmetric") }

    @Test("created with create(_:value:), with embedded objects; read only through the dynamic API; deleteAll removes them")
    func writeOnly() throws {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("a.vault"), encryptionKey: testKey))
        try vault.write {
            for index in 1...3 {
                vault.create(Reading.self, value: ["celsius": Double(index) * 10, "place": ["name": "roof \(index)"]])
            }
        }
        let stored = vault.dynamicObjects("Reading").sorted(byKeyPath: "celsius")
        #expect(stored.map { $0["celsius"] as? Double } == [10, 20, 30])
        #expect(vault.dynamicObjects("ReadingPlace").count == 3, "the embedded objects are stored with their owners")
        #expect(throws: VaultObjectError.self) {
            try vault.write { vault.create(Reading.self, value: ["_id": (stored.first?["_id"] as? ObjectId) ?? ObjectId(), "celsius": 1.0]) }
        }
        try vault.write { vault.deleteAll() }
        #expect(vault.dynamicObjects("Reading").isEmpty && vault.dynamicObjects("ReadingPlace").isEmpty)
    }

    @Test("an AsymmetricObject linking to an Object is an invalid model, naming the property")
    func linksOnlyToEmbedded() throws {
        let configuration = Vault.Configuration(fileURL: directory.file("b.vault"), encryptionKey: testKey, objectTypes: [BadReading.self, TItem.self, TBox.self])
        #expect {
            _ = try Vault(configuration: configuration)
        } throws: { error in
            "\(error)".contains("BadReading.station") && "\(error)".contains("can link only to embedded objects")
        }
    }

    @Test("Object(value:) and create take links and lists of objects as nested dictionaries and arrays, as Realm does")
    func nestedValues() throws {
        let box = TBox(value: ["id": 5, "items": [["id": 50, "name": "x"], [51, "y"]], "itemSet": [["id": 52, "name": "z"]]])
        #expect(box.items.map(\.name) == ["x", "y"] && box.items[1].id == 51 && box.itemSet.map(\.id) == [52])
        let item = TItem(value: ["id": 53, "name": "w", "box": ["id": 6]])
        #expect(item.box?.id == 6)
        let vault = try Vault(configuration: threadingConfiguration(directory))
        try vault.write { vault.add(box); vault.add(item) }
        #expect(vault.objects(TBox.self).count == 2 && vault.objects(TItem.self).count == 4)
    }
}
