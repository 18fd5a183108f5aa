import Foundation
import VaultKit
import VaultRealmImport

/// Step 13: a Realm app's data brought along — an encrypted `.realm` file written by
/// Realm Core imported into a new vault on "first launch", read with the dynamic API,
/// and the old file left for the app to delete.
func importRealmFile(in directory: URL, key: Data) throws {
    let realm = URL(fileURLWithPath: "Tests/RealmFileReaderTests/Fixtures/blog-encrypted.realm")
    guard FileManager.default.fileExists(atPath: realm.path) else {
        print(" 13. (skipped: run from the repository root to import Tests/RealmFileReaderTests/Fixtures/blog-encrypted.realm)")
        return
    }
    let realmKey = Data((0..<64).map { UInt8($0) })   // the fixture's key: bytes 00 01 … 3f
    let url = directory.appendingPathComponent("blog.vault")
    for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let configuration = Vault.Configuration(fileURL: url, encryptionKey: key)
    let started = Date()
    let summary = try Vault.importRealm(at: realm, encryptionKey: realmKey, into: configuration)
    let elapsed = Date().timeIntervalSince(started) * 1000
    print(String(format: " 13. imported an encrypted Realm file (format %d, schema version %llu): %d objects in %.0f ms, no Realm linked",
                 summary.fileFormatVersion, summary.schemaVersion, summary.objectCount, elapsed))
    print("       " + summary.classes.map { "\($0.className): \($0.isEmbedded ? "embedded" : String($0.objects))" }.joined(separator: ", "))
    var opened = configuration
    opened.schemaVersion = summary.schemaVersion
    let vault = try Vault(configuration: opened)
    let posts = vault.dynamicObjects("Post").filter("published == true AND views > 900000 AND views < 1000000").sorted(byKeyPath: "_id")
    let first = try posts.first.orThrow()
    let comments = vault.dynamicObjects("Comment").filter("post._id == %@", first["_id"] as? Int ?? -1)
    print("       \(posts.count) published posts with 900,000 to a million views; post \(first["_id"] ?? "?") has \(comments.count) comments")
}
