import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// `vault import` of the canonical JSON: Realm Core's own documents, and export → import →
/// export byte for byte.
@Suite("JSON import: the canonical encoding into a new vault")
struct JSONRoundTripTests {
    private func export(_ url: URL) throws -> String {
        let version = try schemaVersionAtURL(url, encryptionKey: ImportFixtures.vaultKey)
        return try CanonicalJSONExport.string(of: try Vault(configuration: ImportFixtures.configuration(url, schemaVersion: version)))
    }

    /// Realm Core's JSON of a file, imported directly, is that file's content.
    @Test(arguments: ["alltypes.json", "blog.json", "sync-metadata-v6.json"])
    func realmCoreDocumentsImport(name: String) throws {
        let directory = try TemporaryDirectory("json-import")
        let destination = directory.file("from-json.vault")
        let summary = try CanonicalJSONImport.importDocument(at: ImportFixtures.url(name), into: ImportFixtures.configuration(destination))
        let expected = try ImportFixtures.json(name)
        #expect(summary.schemaVersion == UInt64(truncating: expected["schemaVersion"] as? NSNumber ?? 0))
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(try export(destination).utf8)) as? [String: Any])
        let differences = ImportFixtures.differences(exported, expected)
        #expect(differences.isEmpty, "\(name):\n\(differences)")
    }

    /// export → import → export gives the same bytes (every property type: alltypes; links,
    /// embedded objects, long strings: blog).
    @Test(arguments: ["alltypes.realm", "blog.realm"])
    func exportImportExportIsByteIdentical(realm: String) throws {
        let directory = try TemporaryDirectory("json-round-trip")
        let first = directory.file("first.vault")
        try Vault.importRealm(at: ImportFixtures.url(realm), into: ImportFixtures.configuration(first))
        let document = try export(first)
        let file = directory.file("first.json")
        try Data(document.utf8).write(to: file)
        let second = directory.file("second.vault")
        var reports: [(Int, Int)] = []
        try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(second)) { reports.append(($0, $1)) }
        #expect(reports.last.map { $0.0 == $0.1 } == true)
        let again = try export(second)
        #expect(again == document, "the second export differs from the first")
    }

    @Test func badDocumentsNameWhatFailedAndWriteNothing() throws {
        let directory = try TemporaryDirectory("json-import-bad"), documents = try TemporaryDirectory("json-documents")
        let document = try String(contentsOf: ImportFixtures.url("alltypes.json"), encoding: .utf8)
        func attempt(_ text: String) throws -> JSONImportError? {
            let file = documents.file("doc.json")
            try Data(text.utf8).write(to: file)
            let destination = directory.file("out.vault")
            do {
                try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(destination))
            } catch {
                #expect(try ImportFixtures.files(in: directory.url).isEmpty, "\(error)")
                return error
            }
            try VaultMaintenance.deleteFiles(ofVaultAt: destination)
            return nil
        }
        // Truncated anywhere: malformed.
        for fraction in [0.0, 0.001, 0.3, 0.7, 0.999] {
            let cut = String(document.prefix(Int(Double(document.count) * fraction)))
            guard case .malformed? = try attempt(cut) else {
                Issue.record("cut at \(fraction): not reported as malformed")
                continue
            }
        }
        #expect(try attempt("[1, 2, 3]") != nil)
        #expect(try attempt("not json") != nil)
        // A string where an int belongs: the class, the object and the property are named.
        let wrongType = document.replacingOccurrences(of: "\"req_int\":", with: "\"req_int\":\"seven\",\"x_unused\":", options: [], range: document.range(of: "\"req_int\":"))
        guard case .invalidValue(let className, _, let property, _)? = try attempt(wrongType) else {
            Issue.record("a string for an int property was not reported")
            return
        }
        #expect(className == "AllTypes" && property == "req_int")
        // A link to an object the document does not hold.
        let dangling = document.replacingOccurrences(of: "\"link\":\"target-", with: "\"link\":\"missing-")
        guard case .invalidValue(_, _, let linkProperty, _)? = try attempt(dangling) else {
            Issue.record("a dangling link was not reported")
            return
        }
        #expect(linkProperty == "link")
        // An existing destination is never replaced.
        let existing = directory.file("existing.vault")
        try Data("mine".utf8).write(to: existing)
        #expect(throws: JSONImportError.destinationExists(path: existing.path)) {
            try CanonicalJSONImport.importDocument(at: ImportFixtures.url("alltypes.json"), into: ImportFixtures.configuration(existing))
        }
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))
    }
}

/// Names a vault cannot store are refused before anything is written, naming the class
/// and property.
@Suite("JSON import: reserved and clashing names")
struct ReservedNameTests {
    private func attempt(_ classes: String) throws -> JSONImportError? {
        let directory = try TemporaryDirectory("json-names")
        let file = directory.file("doc.json")
        try Data("{\"schemaVersion\":0,\"classes\":{\(classes)}}".utf8).write(to: file)
        let destination = directory.file("out.vault")
        do {
            try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(destination))
        } catch {
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            return error
        }
        return nil
    }

    private func property(_ name: String) -> String {
        "{\"name\":\"\(name)\",\"type\":\"int\",\"optional\":false,\"collection\":null}"
    }

    @Test func reservedClassNames() throws {
        for name in ["_vaultkit_schema", "_vk_list_A_b", "sqlite_master"] {
            guard case .invalidSchema(let className, _, let reason)? = try attempt("\"\(name)\":{\"embedded\":false,\"primaryKey\":null,\"properties\":[\(property("x"))],\"objects\":[]}") else {
                Issue.record("\(name) was accepted")
                continue
            }
            #expect(className == name && reason.contains("reserved"))
        }
    }

    @Test func clashingNames() throws {
        let reserved = try attempt("\"A\":{\"embedded\":false,\"primaryKey\":null,\"properties\":[\(property("_vk_id"))],\"objects\":[]}")
        guard case .invalidSchema(_, let named, _)? = reserved else { Issue.record("_vk_id was accepted"); return }
        #expect(named == "_vk_id")
        let twice = try attempt("\"A\":{\"embedded\":false,\"primaryKey\":null,\"properties\":[\(property("name")),\(property("Name"))],\"objects\":[]}")
        #expect(twice != nil, "two properties differing by case only were accepted")
        let classes = try attempt("\"Post\":{\"embedded\":false,\"primaryKey\":null,\"properties\":[],\"objects\":[]},\"post\":{\"embedded\":false,\"primaryKey\":null,\"properties\":[],\"objects\":[]}")
        #expect(classes != nil, "two classes differing by case only were accepted")
    }
}
