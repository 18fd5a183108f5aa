import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// Every fixture imported with the file's own schema, exported in the canonical JSON
/// encoding, and compared with the JSON Realm Core wrote from the same file.
@Suite("Realm import: every fixture arrives exactly")
struct FixtureImportTests {
    @Test(arguments: [
        ("blog.realm", "blog.json", 24), ("blog-compact.realm", "blog.json", 24), ("alltypes.realm", "alltypes.json", 24),
        ("sync-metadata-v5.realm", "sync-metadata-v5.json", 22), ("sync-metadata-v6.realm", "sync-metadata-v6.json", 23),
    ])
    func plainFixture(realm: String, json: String, format: Int) throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("imported.vault")
        let summary = try Vault.importRealm(at: ImportFixtures.url(realm), into: ImportFixtures.configuration(destination))
        #expect(summary.fileFormatVersion == format)
        #expect(summary.wroteVault && !summary.wasEncrypted)
        let expected = try ImportFixtures.json(json)
        #expect(UInt64(truncating: expected["schemaVersion"] as? NSNumber ?? 0) == summary.schemaVersion)
        let differences = ImportFixtures.differences(try ImportFixtures.exportJSON(destination), expected)
        #expect(differences.isEmpty, "\(realm):\n\(differences)")
    }

    @Test func encryptedFixture() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("imported.vault")
        let summary = try Vault.importRealm(at: ImportFixtures.url("blog-encrypted.realm"), encryptionKey: try ImportFixtures.blogKey(),
                                            into: ImportFixtures.configuration(destination))
        #expect(summary.wasEncrypted)
        #expect(summary.objectCount == 7180)
        let differences = ImportFixtures.differences(try ImportFixtures.exportJSON(destination), try ImportFixtures.json("blog.json"))
        #expect(differences.isEmpty, "\(differences)")
        // The vault is a VaultKit vault: sealed under its own key, no Realm bytes in clear.
        let bytes = try Data(contentsOf: destination)
        #expect(bytes.range(of: Data("user4@example.com".utf8)) == nil)
    }

    /// 200,000 objects: the figures of bulk.summary.json, from the export.
    @Test func bulkMatchesItsSummary() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("bulk.vault")
        var reports: [RealmImportProgress] = []
        let summary = try Vault.importRealm(at: ImportFixtures.url("bulk.realm"), into: ImportFixtures.configuration(destination)) {
            reports.append($0)
        }
        #expect(summary.objectCount == 200_000)
        #expect(reports.count >= 200)
        #expect(reports.map(\.objectsDone) == reports.map(\.objectsDone).sorted())
        #expect(reports.last?.objectsDone == 200_000 && reports.last?.objectsTotal == 200_000)

        let expected = try ImportFixtures.json("bulk.summary.json")
        let export = try ImportFixtures.exportJSON(destination)
        let item = try #require((export["classes"] as? [String: Any])?["Item"] as? [String: Any])
        let objects = try #require(item["objects"] as? [[String: Any]])
        func int(_ value: Any?) -> Int64 { (value as? NSNumber)?.int64Value ?? 0 }
        var sums = (id: Int64(0), value: 0.0, nulls: 0, maybe: Int64(0), entries: 0, nums: Int64(0), seconds: Int64(0), nanos: Int64(0), nameBytes: 0)
        for object in objects {
            sums.id += int(object["_id"])
            sums.value += (object["value"] as? NSNumber)?.doubleValue ?? .nan
            if object["maybe"] is NSNull { sums.nulls += 1 } else { sums.maybe += int(object["maybe"]) }
            let nums = object["nums"] as? [Any] ?? []
            sums.entries += nums.count
            sums.nums += nums.reduce(0) { $0 + int($1) }
            let at = object["at"] as? [String: Any] ?? [:]
            sums.seconds += int(at["seconds"])
            sums.nanos += int(at["nanoseconds"])
            sums.nameBytes += (object["name"] as? String)?.utf8.count ?? 0
        }
        #expect(objects.count == (expected["objects"] as? Int))
        #expect(sums.id == int(expected["sum__id"]))
        #expect(sums.value == (expected["sum_value"] as? NSNumber)?.doubleValue)
        #expect(sums.nulls == (expected["maybe_nulls"] as? Int))
        #expect(sums.maybe == int(expected["sum_maybe"]))
        #expect(sums.entries == (expected["nums_entries"] as? Int))
        #expect(sums.nums == int(expected["sum_nums"]))
        #expect(sums.seconds == int(expected["sum_at_seconds"]))
        #expect(sums.nanos == int(expected["sum_at_nanoseconds"]))
        #expect(sums.nameBytes == (expected["name_bytes"] as? Int))
        let first = try #require(objects.first), last = try #require(objects.last)
        #expect(JSONComparison.canonical(first) == JSONComparison.canonical(expected["first"] ?? NSNull()))
        #expect(JSONComparison.canonical(last) == JSONComparison.canonical(expected["last"] ?? NSNull()))
    }

    /// The schema-less vault reads back through the dynamic API, and backlinks are queries.
    @Test func dynamicReadsOfTheImportedBlog() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("blog.vault")
        try Vault.importRealm(at: ImportFixtures.url("blog.realm"), into: ImportFixtures.configuration(destination))
        let vault = try Vault(configuration: ImportFixtures.configuration(destination, schemaVersion: 3))
        #expect(vault.dynamicObjects("Post").count == 2000)
        #expect(vault.dynamicObjects("Comment").count == 4980)
        let expected = try ImportFixtures.json("blog.json")
        let posts = try #require(((expected["classes"] as? [String: Any])?["Post"] as? [String: Any])?["objects"] as? [[String: Any]])
        let published = posts.filter { $0["published"] as? Bool == true }.count
        #expect(vault.dynamicObjects("Post").filter("published == true").count == published)
        let post = try #require(vault.dynamicObject(ofType: "Post", forPrimaryKey: posts[0]["_id"] as? Int ?? -1))
        #expect(post["title"] as? String == posts[0]["title"] as? String)
        let comments = vault.dynamicObjects("Comment").filter("post._id == %@", posts[0]["_id"] as? Int ?? -1)
        let allComments = try #require(((expected["classes"] as? [String: Any])?["Comment"] as? [String: Any])?["objects"] as? [[String: Any]])
        #expect(comments.count == allComments.filter { ($0["post"] as? Int) == (posts[0]["_id"] as? Int) }.count)
    }

    @Test func dryRunReadsEverythingAndWritesNothing() throws {
        let directory = try TemporaryDirectory("realm-import")
        let summary = try Vault.inspectRealm(at: ImportFixtures.url("alltypes.realm"))
        #expect(!summary.wroteVault)
        #expect(summary.classes.map(\.className) == ["AllTypes", "Emb", "Inner", "Target"])
        #expect(summary.classes.first { $0.className == "AllTypes" }?.objects == 100)
        #expect(try ImportFixtures.files(in: directory.url).isEmpty)
    }
}
