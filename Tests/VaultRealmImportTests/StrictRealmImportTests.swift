import Foundation
import RealmFileReader
import Testing
import VaultCore
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// What a Realm file cannot hold is refused — by the dry run as by the import, with the
/// same typed error naming the class, object and property, and nothing written — and
/// `vault import-realm` exits with 65 without SQLite's text (issue #63).
@Suite("Realm import: the same strict checks in a dry run and an import")
struct StrictRealmImportTests {
    typealias Files = StrictRealmFiles

    /// Runs the dry run and the import of `data`; both must refuse it with one error, naming
    /// `className` and `property` with a reason holding `fragment`, and leave nothing behind.
    private func expectRefused(_ data: Data, className: String, object: String? = nil, property: String,
                               reason fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory("realm-import-strict")
        let source = directory.file("source.realm")
        try data.write(to: source)
        let dryRun = #expect(throws: RealmImportError.self, "dry run", sourceLocation: sourceLocation) {
            try Vault.inspectRealm(at: source)
        }
        let imported = #expect(throws: RealmImportError.self, "import", sourceLocation: sourceLocation) {
            try Vault.importRealm(at: source, into: ImportFixtures.configuration(directory.file("out.vault")))
        }
        #expect(dryRun == imported, "the dry run and the import disagree", sourceLocation: sourceLocation)
        #expect(try ImportFixtures.files(in: directory.url) == ["source.realm"], sourceLocation: sourceLocation)
        guard case let .invalidObject(refusedClass, refusedObject, refusedProperty, reason)? = imported else {
            Issue.record("expected an invalid object, got \(String(describing: imported))", sourceLocation: sourceLocation)
            return
        }
        #expect(refusedClass == className && refusedProperty == property && reason.contains(fragment),
                "\(String(describing: imported))", sourceLocation: sourceLocation)
        if let object { #expect(refusedObject == object, sourceLocation: sourceLocation) }
    }

    /// Imports `data` (which must succeed) and returns the export's objects of `className`.
    private func imported(_ data: Data, className: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let directory = try TemporaryDirectory("realm-import-strict")
        let source = directory.file("source.realm")
        try data.write(to: source)
        try Vault.inspectRealm(at: source)
        let destination = directory.file("out.vault")
        try Vault.importRealm(at: source, into: ImportFixtures.configuration(destination))
        let json = try ImportFixtures.exportJSON(destination)
        let entry = (json["classes"] as? [String: Any])?[className] as? [String: Any]
        return try #require(entry?["objects"] as? [[String: Any]], sourceLocation: sourceLocation)
    }

    // MARK: Primary keys

    @Test func repeatedIntegerPrimaryKey() throws {
        #expect(try imported(Files.intKeys([7, 8]), className: "Item").compactMap { $0["_id"] as? Int } == [7, 8])
        try expectRefused(Files.intKeys([7, 7]), className: "Item", object: "the object with key 1", property: "_id",
                          reason: "also that of the object with key 0")
    }

    @Test func repeatedStringPrimaryKey() throws {
        #expect(try imported(Files.stringKeys(["a", "b"]), className: "Item").count == 2)
        try expectRefused(Files.stringKeys(["a", "b", "a"]), className: "Item", object: "the object with key 2",
                          property: "_id", reason: "also that of the object with key 0")
    }

    @Test func nullRequiredPrimaryKey() throws {
        try expectRefused(Files.stringKeys([nil, "b"]), className: "Item", object: "the object with key 0",
                          property: "_id", reason: "required primary key is null")
    }

    @Test("an optional primary key is null at most once (SQLite's UNIQUE would take two)")
    func optionalPrimaryKeyNullTwice() throws {
        #expect(try imported(Files.stringKeys([nil, "b"], optional: true), className: "Item").count == 2)
        try expectRefused(Files.stringKeys([nil, nil], optional: true), className: "Item", object: "the object with key 1",
                          property: "_id", reason: "also that of the object with key 0")
    }

    // MARK: Values, sets, links

    @Test func nullInARequiredProperty() throws {
        #expect(try imported(Files.names([Array("x".utf8)]), className: "Item").first?["name"] as? String == "x")
        try expectRefused(Files.names([Array("x".utf8), nil]), className: "Item", object: "the object with key 1",
                          property: "name", reason: "required property holds null")
    }

    @Test func repeatedSetElement() throws {
        #expect(try imported(Files.intSets([[3, 4], []]), className: "Item").count == 2)
        try expectRefused(Files.intSets([[1], [3, 3]]), className: "Item", object: "the object with key 1",
                          property: "tags", reason: "one element twice")
    }

    @Test("a link to an object the file does not hold is refused by the dry run too")
    func danglingLink() throws {
        #expect(try imported(Files.owners(links: [1, 0], children: 1, embedded: false), className: "Owner").count == 2)
        try expectRefused(Files.owners(links: [1, 6], children: 1, embedded: false), className: "Owner",
                          object: "the object with key 1", property: "child", reason: "which the file does not hold")
    }

    // MARK: Embedded objects

    @Test func embeddedObjectsHaveExactlyOneOwner() throws {
        let owners = try imported(Files.owners(links: [1, 2], children: 2), className: "Owner")
        #expect(owners.compactMap { ($0["child"] as? [String: Any])?["n"] as? Int } == [100, 101])
        // Two owners of one embedded object: it would be imported twice.
        try expectRefused(Files.owners(links: [1, 1], children: 2), className: "Owner", object: "the object with key 1",
                          property: "child", reason: "has another owner too")
        // An embedded object no object owns: it would be dropped without a word.
        try expectRefused(Files.owners(links: [1, 0], children: 2), className: "Child", property: "(owner)",
                          reason: "embedded objects that no object owns")
    }

    @Test func embeddedClassWithAPrimaryKey() throws {
        try expectRefused(Files.owners(links: [1, 2], children: 2, childKey: true), className: "Child", object: "the schema",
                          property: "n", reason: "embedded class has a primary key")
    }

    // MARK: The command line

    private func keyFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("vault.key").path
        #expect(try runVault(["keygen", "--output", path]).status == 0)
        return path
    }

    /// `vault import-realm` of `data`, with and without `--dry-run`: both exit 65, print a
    /// message holding every fragment and no SQLite text, and write nothing.
    private func expectExit65(_ data: Data, mentioning fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory("realm-import-strict-cli")
        let key = try keyFile(in: directory)
        let source = directory.file("source.realm")
        try data.write(to: source)
        let destination = directory.file("out.vault").path
        for dryRun in [true, false] {
            let run = try runVault(["import-realm", source.path, destination, "--key-file", key] + (dryRun ? ["--dry-run"] : []))
            #expect(run.status == 65, "dry run \(dryRun): \(run.error)", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(run.error.contains(fragment), "dry run \(dryRun): \(run.error)", sourceLocation: sourceLocation)
            }
            #expect(!run.error.contains("SQLite") && !run.error.contains("constraint"), "\(run.error)", sourceLocation: sourceLocation)
        }
        #expect(try ImportFixtures.files(in: directory.url).filter { $0.contains("out.vault") }.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func refusalsExitWith65AndNameClassObjectAndProperty() throws {
        try expectExit65(Files.intKeys([7, 7]), mentioning: ["Item._id", "the object with key 1"])
        try expectExit65(Files.intSets([[3, 3]]), mentioning: ["Item.tags", "the object with key 0"])
        try expectExit65(Files.names([[0x61, 0xFF]]), mentioning: ["Item", "name", "the object with key 0", "UTF-8"])
    }

    @Test("a class or property name holding a control character is refused with 65, not SQLite's error")
    func controlCharactersInNames() throws {
        try expectExit65(Files.names([Array("x".utf8)], property: "a\u{0}b"), mentioning: ["control character"])
        try expectExit65(Files.names([Array("x".utf8)], className: "Bad\u{1}Class"), mentioning: ["control character"])
    }

    @Test("the fixture's set of one false, its count changed to 1.2 million (3 bytes), is refused fast with 65")
    func amplifiedSetIsRefused() throws {
        var bytes = [UInt8](try Data(contentsOf: ImportFixtures.url("alltypes.realm")))
        // AllTypes object 1's set_bool: a zero-width leaf of one element (see the reader's BoundedCountTests).
        let ref = 0x6038
        #expect(bytes[ref..<ref + 8].elementsEqual([0x41, 0x41, 0x41, 0x41, 0x00, 0x00, 0x00, 0x01]))
        bytes.replaceSubrange(ref + 5..<ref + 8, with: [0x12, 0x4F, 0x80])
        let start = Date()
        try expectExit65(Data(bytes), mentioning: ["corrupt", "set_bool"])
        #expect(Date().timeIntervalSince(start) < 60)
    }
}
