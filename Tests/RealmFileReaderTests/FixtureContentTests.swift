import Foundation
import Testing
@testable import RealmFileReader
import VaultTestSupport

/// Every class, property schema, object and value of the fixtures, compared with the JSON
/// Realm Core produced from the same files.
@Suite("Fixture contents match Realm Core's JSON")
struct FixtureContentTests {
    private func check(_ url: URL, json: URL, key: [UInt8]? = nil, format: Int) throws {
        let file = try RealmFile(url: url, encryptionKey: key)
        #expect(file.fileFormatVersion == format)
        let actual = try CanonicalJSON(file: file).document()
        let expected = try Fixtures.json(json)
        let comparison = JSONComparison(actual: actual, expected: expected)
        #expect(comparison.differences.isEmpty, "\(url.lastPathComponent): \(comparison.differences.joined(separator: "\n"))")
    }

    @Test func blog() throws {
        try check(Fixtures.url("blog.realm"), json: Fixtures.url("blog.json"), format: 24)
    }

    @Test func blogCompact() throws {
        try check(Fixtures.url("blog-compact.realm"), json: Fixtures.url("blog.json"), format: 24)
    }

    @Test func blogEncrypted() throws {
        try check(Fixtures.url("blog-encrypted.realm"), json: Fixtures.url("blog.json"), key: try Fixtures.blogKey(),
                  format: 24)
    }

    @Test func allTypes() throws {
        try check(Fixtures.url("alltypes.realm"), json: Fixtures.url("alltypes.json"), format: 24)
    }

    // The format-22 and -23 files live in the shared fixture directory (they are Realm Core's
    // own test files); the tests are skipped, with this reason, when it is not checked out.
    @Test(.enabled(if: Fixtures.sharedExists("older/sync-metadata-v5.realm"),
                   "shared/fixtures/realm/older/sync-metadata-v5.realm is not present next to this checkout"))
    func format22() throws {
        try check(Fixtures.sharedURL("older/sync-metadata-v5.realm"),
                  json: Fixtures.sharedURL("older/sync-metadata-v5.json"), format: 22)
    }

    @Test(.enabled(if: Fixtures.sharedExists("older/sync-metadata-v6.realm"),
                   "shared/fixtures/realm/older/sync-metadata-v6.realm is not present next to this checkout"))
    func format23() throws {
        try check(Fixtures.sharedURL("older/sync-metadata-v6.realm"),
                  json: Fixtures.sharedURL("older/sync-metadata-v6.json"), format: 23)
    }

    @Test func schemaOfBlog() throws {
        let file = try RealmFile(url: Fixtures.url("blog.realm"))
        #expect(file.schemaVersion == 3)
        #expect(file.classes.map(\.name).sorted() == ["Address", "Author", "Comment", "Post"])
        let post = try #require(file.classes.first { $0.name == "Post" })
        #expect(post.primaryKey == "_id")
        #expect(try file.objectCount(ofClass: "Post") == 2000)
        #expect(try file.objectCount(ofClass: "Comment") == 4980)
    }

    @Test func concurrentReadersShareOneFile() async throws {
        let file = try RealmFile(url: Fixtures.url("blog-encrypted.realm"), encryptionKey: try Fixtures.blogKey())
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var count = 0
                    for cls in file.classes where !cls.isEmbedded {
                        try file.forEachObject(ofClass: cls.name) { _ in count += 1 }
                    }
                    return count
                }
            }
            var all: [Int] = []
            for try await count in group { all.append(count) }
            return all
        }
        #expect(counts == [7180, 7180, 7180, 7180])
    }

    @Test func unknownClass() throws {
        let file = try RealmFile(url: Fixtures.url("alltypes.realm"))
        #expect(throws: RealmFileError.unknownClass("Nope")) { try file.objectCount(ofClass: "Nope") }
        #expect(throws: RealmFileError.unknownClass("metadata")) { try file.forEachObject(ofClass: "metadata") { _ in } }
    }
}
