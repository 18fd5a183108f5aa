import Foundation
import Testing
import VaultCore
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// The typed import of every property kind, and of the older file formats.
@Suite("Realm import into models: every property kind, older formats")
struct TypedAllTypesTests {
    private func objects(_ json: [String: Any], _ className: String) -> [[String: Any]] {
        ((json["classes"] as? [String: Any])?[className] as? [String: Any])?["objects"] as? [[String: Any]] ?? []
    }

    @Test func allTypesArriveInTheirModels() throws {
        let directory = try TemporaryDirectory("typed-alltypes")
        let destination = directory.file("alltypes.vault")
        let summary = try Vault.importRealm(at: ImportFixtures.url("alltypes.realm"),
                                            into: ImportFixtures.configuration(destination, objectTypes: [AllTypes.self]))
        #expect(summary.runtimeClasses.isEmpty)
        let expected = try ImportFixtures.json("alltypes.json")
        // Every object and value, as the file holds them.
        let differences = ImportFixtures.differences(try ImportFixtures.exportJSON(destination), expected)
        #expect(differences.isEmpty, "\(differences)")

        // And through the Swift API.
        let vault = try Vault(configuration: ImportFixtures.configuration(destination, objectTypes: [AllTypes.self], schemaVersion: 1))
        let all = objects(expected, "AllTypes")
        #expect(vault.objects(AllTypes.self).count == all.count)
        for json in all.prefix(20) {
            let id = try #require(json["_id"] as? Int)
            let object = try #require(vault.object(ofType: AllTypes.self, forPrimaryKey: id))
            #expect(object.req_string == json["req_string"] as? String)
            #expect(object.req_decimal.stringValue == json["req_decimal"] as? String)
            #expect(object.opt_int == json["opt_int"] as? Int)
            #expect(object.list_int.map { $0 } == (json["list_int"] as? [Int] ?? []))
            #expect(object.set_string.count == (json["set_string"] as? [Any])?.count)
            #expect(object.map_int.count == (json["map_int"] as? [String: Any])?.count)
            #expect(object.req_objectId.stringValue == json["req_objectId"] as? String)
            #expect(object.req_uuid.uuidString.lowercased() == json["req_uuid"] as? String)
            if let date = json["req_date"] as? [String: Any], let seconds = (date["seconds"] as? NSNumber)?.doubleValue,
               let nanoseconds = (date["nanoseconds"] as? NSNumber)?.doubleValue {
                #expect(abs(object.req_date.timeIntervalSince1970 - (seconds + nanoseconds / 1e9)) < 1e-6)
            }
            #expect(object.link?.name == json["link"] as? String)
            #expect(object.list_link.map(\.name) == (json["list_link"] as? [String] ?? []))
            let emb = json["emb"] as? [String: Any]
            #expect(object.emb?.label == emb?["label"] as? String)
            #expect(object.emb?.child?.label == (emb?["child"] as? [String: Any])?["label"] as? String)
            #expect(object.list_emb.count == (json["list_emb"] as? [Any])?.count)
        }
        // Floats keep NaN (a set keeps two), doubles keep infinities.
        let nanSets = all.filter { (($0["set_float"] as? [Any]) ?? []).filter { $0 as? String == "NaN" }.count == 2 }.count
        #expect(vault.objects(AllTypes.self).filter { $0.set_float.filter(\.isNaN).count == 2 }.count == nanSets)
        let infinite = all.filter { $0["req_double"] as? String == "Infinity" }.count
        #expect(vault.objects(AllTypes.self).filter { $0.req_double == .infinity }.count == infinite)
    }

    @Test(arguments: ["sync-metadata-v5.realm", "sync-metadata-v6.realm"])
    func olderFormatsArriveInTheirModels(name: String) throws {
        let directory = try TemporaryDirectory("typed-older")
        let destination = directory.file("older.vault")
        let models: [ObjectBase.Type] = [AppMetadata.self, FileActionMetadata.self, UserMetadata.self, current_user_identity.self]
        let summary = try Vault.importRealm(at: ImportFixtures.url(name), into: ImportFixtures.configuration(destination, objectTypes: models))
        let expected = try ImportFixtures.json(name.replacingOccurrences(of: ".realm", with: ".json"))
        // The v5 file's ClientMetadata has no model here: it arrives as a runtime class.
        #expect(summary.runtimeClasses == (name.contains("v5") ? ["ClientMetadata"] : []))
        let vault = try Vault(configuration: ImportFixtures.configuration(destination, objectTypes: models, schemaVersion: summary.schemaVersion))
        let users = objects(expected, "UserMetadata")
        #expect(vault.objects(UserMetadata.self).count == users.count)
        let identities = objects(expected, "UserIdentity")
        for (object, json) in zip(vault.objects(UserMetadata.self), users) {
            #expect(object.identity == json["identity"] as? String)
            #expect(object.refresh_token == json["refresh_token"] as? String)
            // Links to a class without primary key are {"class", "index"} in the JSON.
            let linked = (json["identities"] as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int }.map { identities[$0]["id"] as? String }
            #expect(object.identities.map(\.id) == linked.compactMap { $0 })
        }
        if name.contains("v5") {
            #expect(vault.dynamicObjects("ClientMetadata").count == objects(expected, "ClientMetadata").count)
        } else {
            let differences = ImportFixtures.differences(try ImportFixtures.exportJSON(destination), expected)
            #expect(differences.isEmpty, "\(differences)")
        }
    }
}
