import Foundation
import Testing
import VaultTestSupport

/// Class and property names arrive exactly, whatever printable characters they
/// hold, or the import is refused with nothing written.
@Suite("vault import and import-realm keep names exactly")
struct ImportNameTests {
    private func vault(_ arguments: [String]) throws -> VaultRun { try runVault(arguments) }

    /// Property names with inner, leading and trailing spaces, a dot, quotes, an emoji,
    /// brackets and a percent sign, in a class whose name holds a space.
    static let oddNames = ["a b", " a", "z ", "x.y", "q\"t'", "🙂 emoji", "[br]", "50%", "x==nil||TRUEPREDICATE||x"]

    /// A document of class `className` with `names` as optional string properties,
    /// a string primary key, a list and a link to itself, and two objects.
    static func document(className: String = "My Class", names: [String] = oddNames) throws -> Data {
        var properties: [[String: Any]] = [
            ["name": "the id", "type": "string", "optional": false, "collection": NSNull(), "primaryKey": true, "indexed": true],
            ["name": "list of", "type": "int", "optional": false, "collection": "list"],
            ["name": "link me", "type": "object", "objectType": className, "optional": true, "collection": NSNull()],
        ]
        var first: [String: Any] = ["the id": "one", "list of": [1, 2], "link me": NSNull()]
        var second: [String: Any] = ["the id": "two", "list of": [Int](), "link me": "one"]
        for (index, name) in names.enumerated() {
            properties.append(["name": name, "type": "string", "optional": true, "collection": NSNull()])
            first[name] = "value \(index) of \(name)"
            second[name] = NSNull()
        }
        let document: [String: Any] = ["schemaVersion": 1, "classes": [className: ["embedded": false, "primaryKey": "the id",
                                                                                     "properties": properties, "objects": [first, second]]]]
        return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    }

    @Test("names with spaces, dots, quotes and emoji are stored exactly: export → import → export gives the same bytes, merged too")
    func oddNamesRoundTrip() throws {
        let directory = try TemporaryDirectory("import-names")
        let key = directory.file("k.key").path
        #expect(try vault(["keygen", "--output", key]).status == 0)
        let source = directory.file("odd.json")
        try Self.document().write(to: source)

        let first = directory.file("first.vault").path
        let imported = try vault(["import", first, source.path, "--key-file", key])
        #expect(imported.status == 0, "\(imported.error)")
        let export = try vault(["export", first, "--key-file", key])
        #expect(export.status == 0, "\(export.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let classes = try #require(json["classes"] as? [String: Any])
        let entry = try #require(classes["My Class"] as? [String: Any], "class name with a space: \(classes.keys.sorted())")
        let properties = try #require(entry["properties"] as? [[String: Any]])
        let names = properties.compactMap { $0["name"] as? String }
        #expect(Set(names) == Set(Self.oddNames + ["the id", "list of", "link me"]))
        let objects = try #require(entry["objects"] as? [[String: Any]])
        let one = try #require(objects.first { $0["the id"] as? String == "one" })
        for (index, name) in Self.oddNames.enumerated() {
            #expect(one[name] as? String == "value \(index) of \(name)", "\(name)")
        }
        #expect(objects.first { $0["the id"] as? String == "two" }?["link me"] as? String == "one")

        // The export imported again, and merged into the first vault: the same bytes.
        let exported = directory.file("export.json")
        try Data(export.output.utf8).write(to: exported)
        let second = directory.file("second.vault").path
        #expect(try vault(["import", second, exported.path, "--key-file", key]).status == 0)
        #expect(try vault(["export", second, "--key-file", key]).output == export.output)
        let merged = try vault(["import", first, exported.path, "--key-file", key])
        #expect(merged.status == 0, "\(merged.error)")
        #expect(try vault(["export", first, "--key-file", key]).output == export.output)
    }

    @Test("a name holding a control character is refused (exit 65, the name in the message) and nothing is written",
          arguments: ["a\nb", "a\u{0}b", "tab\there", "del\u{7f}"])
    func controlCharactersRefused(name: String) throws {
        let directory = try TemporaryDirectory("import-names")
        let key = directory.file("k.key").path
        #expect(try vault(["keygen", "--output", key]).status == 0)
        for (label, document) in [("property", try Self.document(names: ["fine", name])),
                                  ("class", try Self.document(className: "Bad\(name)Class", names: ["fine"]))] {
            let source = directory.file("bad-\(label).json")
            try document.write(to: source)
            let destination = directory.file("bad-\(label).vault")
            let run = try vault(["import", destination.path, source.path, "--key-file", key])
            #expect(run.status == 65, "\(label): \(run.error)")
            #expect(run.error.contains("control character"), "\(label): \(run.error)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("bad-\(label).vault") || $0.hasPrefix(".vaultkit-new") }
            #expect(left.isEmpty, "\(label): \(left)")
        }
    }

    @Test("a Realm column whose name holds a space is imported under that name with its values")
    func realmColumnWithSpace() throws {
        let directory = try TemporaryDirectory("import-names")
        let key = directory.file("k.key").path
        #expect(try vault(["keygen", "--output", key]).status == 0)
        var bytes = try Data(contentsOf: ImportFixtures.url("alltypes.realm"))
        let from = Data("req_int".utf8), to = Data("req int".utf8)
        let range = try #require(bytes.range(of: from), "the fixture names req_int")
        bytes.replaceSubrange(range, with: to)
        #expect(bytes.range(of: from) == nil, "one column name, changed once")
        let realm = directory.file("spaced.realm")
        try bytes.write(to: realm)
        let destination = directory.file("spaced.vault").path
        let run = try vault(["import-realm", realm.path, destination, "--key-file", key])
        #expect(run.status == 0, "\(run.error)")
        let export = try vault(["export", destination, "--key-file", key])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let expected = try ImportFixtures.json("alltypes.json")
        let objects = ((json["classes"] as? [String: Any])?["AllTypes"] as? [String: Any])?["objects"] as? [[String: Any]] ?? []
        let expectedObjects = ((expected["classes"] as? [String: Any])?["AllTypes"] as? [String: Any])?["objects"] as? [[String: Any]] ?? []
        #expect(!objects.isEmpty && objects.count == expectedObjects.count)
        for (object, original) in zip(objects, expectedObjects) {
            #expect(object["req int"] as? Int == original["req_int"] as? Int)
            #expect(object["req int"] != nil)
        }
    }
}
