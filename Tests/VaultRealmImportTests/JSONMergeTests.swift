import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// `vault import` into an existing vault: upsert by primary key, links resolved after
/// every object exists, one transaction.
@Suite("JSON import into an existing vault")
struct JSONMergeTests {
    private func open(_ url: URL) throws -> Vault {
        let version = try schemaVersionAtURL(url, encryptionKey: ImportFixtures.vaultKey)
        return try Vault(configuration: ImportFixtures.configuration(url, schemaVersion: version))
    }

    private func fixtureVault(_ realm: String, in directory: TemporaryDirectory) throws -> (URL, String) {
        let url = directory.file("merge.vault")
        try Vault.importRealm(at: ImportFixtures.url(realm), into: ImportFixtures.configuration(url))
        return (url, try CanonicalJSONExport.string(of: try open(url)))
    }

    @Test(arguments: ["alltypes.realm", "blog.realm"])
    func mergingAVaultsOwnExportChangesNothing(realm: String) throws {
        let directory = try TemporaryDirectory("json-merge")
        let (url, document) = try fixtureVault(realm, in: directory)
        let file = directory.file("doc.json")
        try Data(document.utf8).write(to: file)
        let vault = try open(url)
        let summary = try CanonicalJSONImport.importDocument(at: file, into: vault)
        #expect(summary.objectCount > 0)
        // Classes without a primary key get their objects again (they cannot be matched).
        let again = try CanonicalJSONExport.string(of: try open(url))
        if realm == "alltypes.realm" {
            #expect(again == document)
        } else {
            let before = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
            let after = try #require(try JSONSerialization.jsonObject(with: Data(again.utf8)) as? [String: Any])
            func count(_ json: [String: Any], _ name: String) -> Int {
                (((json["classes"] as? [String: Any])?[name] as? [String: Any])?["objects"] as? [Any])?.count ?? -1
            }
            #expect(count(after, "Post") == count(before, "Post") && count(after, "Author") == count(before, "Author"))
            #expect(count(after, "Comment") == 2 * count(before, "Comment"))
        }
    }

    @Test func updatesAndCreatesByPrimaryKey() throws {
        let directory = try TemporaryDirectory("json-merge")
        let (url, _) = try fixtureVault("alltypes.realm", in: directory)
        // A document with one Target changed, one new Target, and an AllTypes object linking to the new one.
        let document = """
            {"schemaVersion":1,"classes":{
            "AllTypes":{"embedded":false,"primaryKey":"_id","properties":[
              {"name":"_id","type":"int","optional":false,"collection":null,"primaryKey":true},
              {"name":"req_string","type":"string","optional":false,"collection":null},
              {"name":"link","type":"object","optional":true,"collection":null,"objectType":"Target"},
              {"name":"list_link","type":"object","optional":false,"collection":"list","objectType":"Target"}],
             "objects":[{"_id":0,"req_string":"changed","link":"fresh","list_link":["fresh","target-1"]},
                        {"_id":1000,"req_string":"new","link":null,"list_link":[]}]},
            "Target":{"embedded":false,"primaryKey":"name","properties":[
              {"name":"name","type":"string","optional":false,"collection":null,"primaryKey":true},
              {"name":"value","type":"int","optional":false,"collection":null}],
             "objects":[{"name":"fresh","value":42},{"name":"target-1","value":-1}]}}}
            """
        let file = directory.file("doc.json")
        try Data(document.utf8).write(to: file)
        let vault = try open(url)
        let before = vault.dynamicObjects("AllTypes").count
        try CanonicalJSONImport.importDocument(at: file, into: vault)
        let reader = try open(url)
        #expect(reader.dynamicObjects("AllTypes").count == before + 1)
        let zero = try #require(reader.dynamicObject(ofType: "AllTypes", forPrimaryKey: 0))
        #expect(zero["req_string"] as? String == "changed")
        #expect((zero["link"] as? DynamicObject)?["name"] as? String == "fresh")
        #expect((reader.dynamicObject(ofType: "Target", forPrimaryKey: "target-1"))?["value"] as? Int == -1)
        #expect((reader.dynamicObject(ofType: "Target", forPrimaryKey: "fresh"))?["value"] as? Int == 42)
        // Properties the document leaves out keep their values.
        #expect(zero["req_int"] as? Int != nil)
        #expect(reader.dynamicObjects("AllTypes").filter("ANY list_link.name == 'fresh'").count == 1)
    }

    @Test func aMismatchOrABadValueWritesNothing() throws {
        let directory = try TemporaryDirectory("json-merge")
        let (url, document) = try fixtureVault("alltypes.realm", in: directory)
        let file = directory.file("doc.json")
        // A property the vault does not have.
        try Data(document.replacingOccurrences(of: "\"name\":\"req_int\"", with: "\"name\":\"req_integer\"").utf8).write(to: file)
        #expect {
            try CanonicalJSONImport.importDocument(at: file, into: try open(url))
        } throws: { error in
            guard case .invalidSchema(let className, let property, _) = error as? JSONImportError else { return false }
            return className == "AllTypes" && property == "req_integer"
        }
        // A bad value late in the document: the earlier objects are not kept either.
        let lastString = try #require(document.range(of: "\"req_string\":", options: .backwards))
        var broken = document
        broken.replaceSubrange(lastString, with: "\"req_string\":17,\"_unused\":")
        try Data(broken.utf8).write(to: file)
        #expect(throws: JSONImportError.self) { try CanonicalJSONImport.importDocument(at: file, into: try open(url)) }
        #expect(try CanonicalJSONExport.string(of: try open(url)) == document)
    }
}
