import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultTestSupport

/// A small document and the two ways to import it: into a new vault, and merged into a
/// vault made from `base` (whose bytes must not change when the merge is refused).
struct StrictImport {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory("json-strict") }

    static let postProperties = [
        #"{"name":"_id","type":"int","optional":false,"collection":null,"primaryKey":true}"#,
        #"{"name":"v","type":"int","optional":true,"collection":null}"#,
        #"{"name":"t","type":"string","optional":true,"collection":null}"#,
        #"{"name":"m","type":"mixed","optional":true,"collection":null}"#,
        #"{"name":"f","type":"float","optional":true,"collection":null}"#,
        #"{"name":"x","type":"double","optional":true,"collection":null}"#,
        #"{"name":"d","type":"data","optional":true,"collection":null}"#,
        #"{"name":"dec","type":"decimal","optional":true,"collection":null}"#,
        #"{"name":"tag","type":"object","objectType":"Tag","optional":true,"collection":null}"#,
    ].joined(separator: ",")
    static let tagProperties = #"{"name":"name","type":"string","optional":false,"collection":null,"primaryKey":true}"#
    static let noteProperties = #"{"name":"text","type":"string","optional":true,"collection":null}"#

    /// A document of Post (int key), Tag (string key) and Note (no key) with these objects.
    static func document(posts: String, tags: String = #"{"name":"alpha"},{"name":"omega"}"#, notes: String = #"{"text":"n0"}"#) -> String {
        """
        {"schemaVersion":1,"classes":{\
        "Note":{"embedded":false,"primaryKey":null,"properties":[\(noteProperties)],"objects":[\(notes)]},\
        "Post":{"embedded":false,"primaryKey":"_id","properties":[\(postProperties)],"objects":[\(posts)]},\
        "Tag":{"embedded":false,"primaryKey":"name","properties":[\(tagProperties)],"objects":[\(tags)]}}}
        """
    }

    /// Imports `text` into a new vault: its export, or the error (after checking nothing was left).
    func importNew(_ text: String, name: String = "new") throws -> Result<String, JSONImportError> {
        let file = directory.file("\(name).json")
        try Data(text.utf8).write(to: file)
        let destination = directory.file("\(name).vault")
        do {
            try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(destination))
        } catch {
            #expect(!FileManager.default.fileExists(atPath: destination.path), "a refused import left a vault")
            return .failure(error)
        }
        return .success(try export(destination))
    }

    /// Merges `text` into a vault imported from `base`: the merged export, or the error
    /// (after checking the vault's export is unchanged).
    func merge(_ text: String, into base: String, name: String = "merge") throws -> Result<String, JSONImportError> {
        guard case .success(let before) = try importNew(base, name: name + "-base") else {
            Issue.record("the base document does not import")
            return .success("")
        }
        let file = directory.file("\(name).json")
        try Data(text.utf8).write(to: file)
        let vaultURL = directory.file("\(name)-base.vault")
        do {
            let version = try schemaVersionAtURL(vaultURL, encryptionKey: ImportFixtures.vaultKey)
            let vault = try Vault(configuration: ImportFixtures.configuration(vaultURL, schemaVersion: version))
            try CanonicalJSONImport.importDocument(at: file, into: vault)
        } catch let error as JSONImportError {
            #expect(try export(vaultURL) == before, "a refused merge changed the vault")
            return .failure(error)
        }
        return .success(try export(vaultURL))
    }

    func export(_ url: URL) throws -> String {
        let version = try schemaVersionAtURL(url, encryptionKey: ImportFixtures.vaultKey)
        return try CanonicalJSONExport.string(of: try Vault(configuration: ImportFixtures.configuration(url, schemaVersion: version)))
    }
}

extension Result where Failure == JSONImportError {
    /// The error's text, or nil when the import succeeded.
    var refusal: String? {
        guard case .failure(let error) = self else { return nil }
        return error.description
    }
}

/// Each way the importer used to accept input it should refuse (issue #63), refused now with
/// nothing written — in a new vault and in a merge.
@Suite("JSON import: every value arrives exactly, or nothing is written")
struct StrictJSONImportTests {
    static func nestedList(depth: Int) -> String {
        String(repeating: #"{"type":"list","value":["#, count: depth) + #"{"type":"int","value":1}"# + String(repeating: "]}", count: depth)
    }

    @Test func mixedValuesNestAtMostAHundredLevels() throws {
        let run = try StrictImport()
        let accepted = try run.importNew(StrictImport.document(posts: #"{"_id":1,"m":\#(Self.nestedList(depth: 100))}"#), name: "depth100")
        guard case .success(let exported) = accepted else { Issue.record("depth 100 refused: \(accepted.refusal ?? "")"); return }
        #expect(exported.contains(#""type":"list""#))
        let refused = try run.importNew(StrictImport.document(posts: #"{"_id":1,"m":\#(Self.nestedList(depth: 101))}"#), name: "depth101")
        #expect(refused.refusal?.contains("deeper than 100") == true, "\(refused)")
        #expect(refused.refusal?.contains("Post") == true && refused.refusal?.contains("property m") == true)
        let merged = try run.merge(StrictImport.document(posts: #"{"_id":1,"m":\#(Self.nestedList(depth: 101))}"#),
                                   into: StrictImport.document(posts: #"{"_id":1}"#))
        #expect(merged.refusal?.contains("deeper than 100") == true, "\(merged)")
    }

    @Test func aKeyTwiceInOneObjectIsRefused() throws {
        let run = try StrictImport()
        let inObject = #"{"_id":1,"v":11,"t":"x","_id":2}"#
        #expect(try run.importNew(StrictImport.document(posts: inObject), name: "a").refusal?.contains("appears twice") == true)
        #expect(try run.merge(StrictImport.document(posts: inObject), into: StrictImport.document(posts: #"{"_id":1},{"_id":2}"#)).refusal?
            .contains("appears twice") == true)
        let inLink = #"{"_id":1,"tag":"alpha"}"#
        let twiceTag = StrictImport.document(posts: inLink, tags: #"{"name":"omega","name":"alpha"}"#)
        #expect(try run.importNew(twiceTag, name: "b").refusal?.contains("appears twice") == true)
        let twiceClasses = #"{"schemaVersion":0,"classes":{},"classes":{}}"#
        #expect(try run.importNew(twiceClasses, name: "c").refusal?.contains("appears twice") == true)
        // A refusal names no key: a dictionary's keys are values.
        let mapKey = #"{"schemaVersion":0,"classes":{"M":{"embedded":false,"primaryKey":null,"properties":[{"name":"d","type":"int","optional":false,"collection":"dictionary"}],"objects":[{"d":{"secret":1,"secret":2}}]}}}"#
        let refusal = try run.importNew(mapKey, name: "d").refusal
        #expect(refusal?.contains("appears twice") == true && refusal?.contains("secret") == false, "\(refusal ?? "accepted")")
    }

    @Test func primaryKeysAreOneRequiredAndUnique() throws {
        let run = try StrictImport()
        let twoKeys = #"{"schemaVersion":0,"classes":{"K":{"embedded":false,"primaryKey":null,"properties":[{"name":"a","type":"int","optional":false,"collection":null,"primaryKey":true},{"name":"b","type":"int","optional":false,"collection":null,"primaryKey":true}],"objects":[{"a":1,"b":100},{"a":2,"b":200}]}}}"#
        #expect(try run.importNew(twoKeys, name: "two").refusal?.contains("a second primary key") == true)
        for (name, posts) in [("missing", #"{"v":1}"#), ("null", #"{"_id":null,"v":1}"#)] {
            let refusal = try run.importNew(StrictImport.document(posts: posts), name: name).refusal
            #expect(refusal?.contains("Post at position 0, property _id") == true, "\(name): \(refusal ?? "accepted")")
            let merged = try run.merge(StrictImport.document(posts: posts), into: StrictImport.document(posts: #"{"_id":7}"#), name: "m-" + name)
            #expect(merged.refusal?.contains("property _id") == true, "merge \(name): \(merged)")
        }
        let missingTag = try run.importNew(StrictImport.document(posts: "", tags: #"{"name":"alpha"},{}"#), name: "tag")
        #expect(missingTag.refusal?.contains("Tag at position 1, property name") == true, "\(missingTag)")
        let twice = try run.importNew(StrictImport.document(posts: #"{"_id":5},{"_id":6},{"_id":5}"#), name: "dup")
        #expect(twice.refusal?.contains("Post at position 2, property _id: the object at position 0 has the same primary key") == true, "\(twice)")
        let twiceTag = try run.importNew(StrictImport.document(posts: "", tags: #"{"name":"a"},{"name":"a"}"#), name: "dupTag")
        #expect(twiceTag.refusal?.contains("same primary key") == true, "\(twiceTag)")
        let mergedTwice = try run.merge(StrictImport.document(posts: #"{"_id":1,"v":1},{"_id":1,"v":2}"#), into: StrictImport.document(posts: ""), name: "m-dup")
        #expect(mergedTwice.refusal?.contains("same primary key") == true, "\(mergedTwice)")
        let embeddedWithObjects = #"{"schemaVersion":0,"classes":{"E":{"embedded":true,"primaryKey":null,"properties":[\#(StrictImport.noteProperties)],"objects":[{"text":"x"}]}}}"#
        #expect(try run.importNew(embeddedWithObjects, name: "emb").refusal?.contains("an embedded class lists 1 objects") == true)
        let requiredMissing = #"{"schemaVersion":0,"classes":{"R":{"embedded":false,"primaryKey":null,"properties":[{"name":"s","type":"string","optional":false,"collection":null}],"objects":[{}]}}}"#
        #expect(try run.importNew(requiredMissing, name: "req").refusal?.contains("R at position 0, property s") == true)
    }

    @Test func everyLinkResolvesOrIsRefused() throws {
        let run = try StrictImport()
        let cases = [
            ("int", #"{"_id":1,"m":{"type":"object","class":"Post","value":99}}"#),
            ("string", #"{"_id":1,"m":{"type":"object","class":"Tag","value":"nowhere"}}"#),
            ("index", #"{"_id":1,"m":{"type":"object","class":"Note","value":{"class":"Note","index":5}}}"#),
            ("plain", #"{"_id":1,"tag":"nowhere"}"#),
        ]
        for (name, posts) in cases {
            let refusal = try run.importNew(StrictImport.document(posts: posts), name: name).refusal
            #expect(refusal?.contains("the document does not hold") == true || refusal?.contains("which lists 1") == true, "\(name): \(refusal ?? "accepted")")
            #expect(refusal?.contains("Post with primary key 1") == true, "\(name): \(refusal ?? "accepted")")
        }
        let fine = try run.importNew(StrictImport.document(posts: #"{"_id":1,"m":{"type":"object","class":"Post","value":1},"tag":"omega"}"#), name: "fine")
        #expect(fine.refusal == nil, "\(fine)")
    }

    @Test func numbersFollowJSONAndTheirType() throws {
        let run = try StrictImport()
        for (index, text) in ["01", "-01", "1.", ".5", "+1", "1e", "0x10", "--1"].enumerated() {
            let refusal = try run.importNew(StrictImport.document(posts: #"{"_id":1,"v":\#(text)}"#), name: "n\(index)").refusal
            #expect(refusal?.contains("malformed JSON") == true || refusal?.contains("unexpected character") == true, "\(text): \(refusal ?? "accepted")")
        }
        for (index, member) in [#""x":1e400"#, #""x":-1e400"#, #""x":1e-400"#, #""f":1e39"#, #""f":1e-50"#, #""v":9223372036854775808"#, #""v":1.0"#].enumerated() {
            let refusal = try run.importNew(StrictImport.document(posts: #"{"_id":1,\#(member)}"#), name: "r\(index)").refusal
            #expect(refusal?.contains("Post with primary key 1") == true, "\(member): \(refusal ?? "accepted")")
        }
        let fine = try run.importNew(StrictImport.document(posts: #"{"_id":1,"x":-0.0,"f":1.4012984643248171e-45,"v":-9223372036854775808}"#), name: "fine")
        #expect(fine.refusal == nil, "\(fine)")
    }

    @Test func dataAndDecimalsAreExact() throws {
        let run = try StrictImport()
        let members = [#""d":"====""#, #""d":"YWJj====""#, #""d":"YWJ""#, #""d":"YW Jj""#, #""d":"YWJk\n""#,
                       #""dec":"NaN ""#, #""dec":" 1""#, #""dec":"12345678901234567890123456789012345""#, #""dec":"1,5""#,
                       #""dec":"Infinity""#]
        for (index, member) in members.enumerated() {
            let refusal = try run.importNew(StrictImport.document(posts: #"{"_id":1,\#(member)}"#), name: "v\(index)").refusal
            #expect(refusal?.contains("Post with primary key 1") == true, "\(member): \(refusal ?? "accepted")")
        }
        // The same decimal, spelled differently, is stored in Realm's form.
        let plus = try run.importNew(StrictImport.document(posts: #"{"_id":1,"dec":"+1.50","d":"YWJj"}"#), name: "plus")
        guard case .success(let exported) = plus else { Issue.record("\(plus)"); return }
        #expect(exported.contains(#""dec":"1.50""#) && exported.contains(#""d":"YWJj""#), "\(exported)")
        let digits34 = try run.importNew(StrictImport.document(posts: #"{"_id":1,"dec":"1234567890123456789012345678901234"}"#), name: "d34")
        #expect(digits34.refusal == nil, "\(digits34)")
    }

    /// A date is stored as a Double (about 119 ns apart in 2026): two dates closer than that
    /// cannot both be kept exactly, so an import holding both is refused, not given one for the other.
    @Test func datesADoubleCannotTellApartAreRefused() throws {
        let run = try StrictImport()
        func document(_ dates: [(Int, Int)]) -> String {
            let values = dates.map { #"{"seconds":\#($0.0),"nanoseconds":\#($0.1)}"# }.joined(separator: ",")
            return #"{"schemaVersion":0,"classes":{"D":{"embedded":false,"primaryKey":null,"properties":[{"name":"when","type":"date","optional":false,"collection":"list"}],"objects":[{"when":[\#(values)]}]}}}"#
        }
        for (name, pair) in [("entries", [(1_767_225_600, 1), (1_767_225_600, 2)]), ("plain first", [(1_767_225_600, 0), (1_767_225_600, 1)]),
                             ("entry first", [(1_767_225_600, 1), (1_767_225_600, 0)])] {
            let refusal = try run.importNew(document(pair), name: name.replacingOccurrences(of: " ", with: "-")).refusal
            #expect(refusal?.contains("D at position 0, property when") == true && refusal?.contains("resolution") == true, "\(name): \(refusal ?? "accepted")")
        }
        // Far enough apart, both arrive to the nanosecond.
        let apart = try run.importNew(document([(1_767_225_600, 1), (1_767_225_600, 501)]), name: "apart")
        guard case .success(let exported) = apart else { Issue.record("\(apart)"); return }
        #expect(exported.contains(#""nanoseconds":1}"#) && exported.contains(#""nanoseconds":501}"#), "\(exported)")
    }

    /// Collections are written a batch at a time as they are read: longer than a batch they
    /// arrive whole and in order.
    @Test func collectionsLongerThanABatch() throws {
        let run = try StrictImport()
        let count = 10_000
        let list = (0..<count).map { String($0 &* 7_919 % 100_003) }.joined(separator: ",")
        let set = (0..<count).map { String($0) }.joined(separator: ",")
        let map = (0..<count).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let properties = #"{"name":"l","type":"int","optional":false,"collection":"list"},{"name":"s","type":"int","optional":false,"collection":"set"},{"name":"m","type":"int","optional":false,"collection":"dictionary"}"#
        func document(set: String) -> String {
            #"{"schemaVersion":0,"classes":{"C":{"embedded":false,"primaryKey":null,"properties":[\#(properties)],"objects":[{"l":[\#(list)],"s":[\#(set)],"m":{\#(map)}}]}}}"#
        }
        let imported = try run.importNew(document(set: set), name: "long")
        guard case .success(let exported) = imported else { Issue.record("\(imported)"); return }
        #expect(exported.contains("\"l\":[\(list)]"), "the list did not arrive whole and in order")
        #expect(exported.contains(#""k9999":9999"#) && exported.contains(#""k0":0"#))
        // The set's stored order is its own; every element is there once.
        let again = try run.importNew(exported, name: "again")
        #expect(again == .success(exported))
        // A set keeps one of each element, as Realm's sets do: listed twice, it is there once.
        let repeated = try run.importNew(document(set: set + ",5000"), name: "repeated")
        #expect(repeated == .success(exported), "a set listing an element twice did not import as the set")
    }

    @Test func unknownMembersAreSkippedButStillChecked() throws {
        let run = try StrictImport()
        let document = StrictImport.document(posts: #"{"_id":1}"#)
        let withUnknown = "{\"comment\":[1,{\"a\":[\"x\",null,true]},\"\\u00e9\"]," + document.dropFirst()
        #expect(try run.importNew(withUnknown, name: "unknown").refusal == nil)
        let brokenUnknown = "{\"comment\":[01]," + document.dropFirst()
        #expect(try run.importNew(brokenUnknown, name: "broken").refusal?.contains("malformed JSON") == true)
        let badUTF8 = Data("{\"comment\":\"".utf8) + Data([0xC3, 0x28]) + Data(("\"," + document.dropFirst()).utf8)
        let file = run.directory.file("utf8.json")
        try badUTF8.write(to: file)
        #expect(throws: JSONImportError.self) {
            try CanonicalJSONImport.importDocument(at: file, into: ImportFixtures.configuration(run.directory.file("utf8.vault")))
        }
    }
}
