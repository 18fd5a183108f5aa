import Foundation
import Testing
import VaultCore
import VaultKit
import VaultRealmImport
import VaultTestSupport

// The blog app's models as a RealmSwift app declares them (Realm renamed Vault),
// named as the file's classes are:
// a remapped property, an embedded class, a class without primary key, backlinks.
// `comments` is what the fixture's file stores under that name (a list of UUIDs);
// the backlink from Comment.post is declared under another name.

final class Address: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var zip: Int?
}

final class Author: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var email: String?
    @Persisted var joined = Date()
    @Persisted var rating = 0.0
    @Persisted var tags: List<String>
    @Persisted var address: Address?
    @Persisted var posts: List<Post>
    @Persisted var firstName = ""
    override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
}

final class Post: Object {
    @Persisted(primaryKey: true) var _id = 0
    @Persisted(indexed: true) var title = ""
    @Persisted var body = ""
    @Persisted var published = false
    @Persisted var author: Author?
    @Persisted var created = Date()
    @Persisted var views = 0
    @Persisted var score: Float = 0
    @Persisted var price: Decimal128
    @Persisted var uuid: UUID
    @Persisted var cover: Data?
    @Persisted var tags: MutableSet<String>
    @Persisted var meta: Map<String, String>
    @Persisted var extra: AnyVaultValue
    @Persisted var comments: List<UUID>
    @Persisted(originProperty: "post") var replies: LinkingObjects<Comment>
}

final class Comment: Object {
    @Persisted var text = ""
    @Persisted var post: Post?
    @Persisted var likes: Int?
}

/// A model that disagrees with the file: `views` is a String here.
enum Mismatched {
    final class Post: Object {
        @Persisted(primaryKey: true) var _id = 0
        @Persisted var views = ""
    }
}

@Suite("Realm import into the app's models")
struct TypedImportTests {
    private let models: [ObjectBase.Type] = [Author.self, Post.self, Comment.self, Address.self]

    private func objects(_ json: [String: Any], _ className: String) -> [[String: Any]] {
        ((json["classes"] as? [String: Any])?[className] as? [String: Any])?["objects"] as? [[String: Any]] ?? []
    }

    @Test func blogArrivesInTheModels() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("blog.vault")
        let summary = try Vault.importRealm(at: ImportFixtures.url("blog.realm"),
                                            into: ImportFixtures.configuration(destination, objectTypes: models))
        #expect(summary.runtimeClasses.isEmpty)
        #expect(summary.schemaVersion == 3)

        let vault = try Vault(configuration: ImportFixtures.configuration(destination, objectTypes: models, schemaVersion: 3))
        let expected = try ImportFixtures.json("blog.json")
        let authors = objects(expected, "Author"), posts = objects(expected, "Post"), comments = objects(expected, "Comment")
        #expect(vault.objects(Author.self).count == authors.count)
        #expect(vault.objects(Comment.self).count == comments.count)

        // The remapped property, an embedded object, a link list.
        let firstAuthor = try #require(authors.first)
        let id = try ObjectId(string: try #require(firstAuthor["_id"] as? String))
        let author = try #require(vault.object(ofType: Author.self, forPrimaryKey: id))
        #expect(author.firstName == firstAuthor["first_name"] as? String)
        #expect(author.posts.map(\._id) == (firstAuthor["posts"] as? [Int] ?? []))
        let address = firstAuthor["address"] as? [String: Any]
        #expect(author.address?.city == address?["city"] as? String)

        // Backlinks are queries over the imported links.
        for post in posts.prefix(50) {
            let key = try #require(post["_id"] as? Int)
            let stored = try #require(vault.object(ofType: Post.self, forPrimaryKey: key))
            #expect(stored.replies.count == comments.filter { $0["post"] as? Int == key }.count)
            #expect(stored.title == post["title"] as? String)
            #expect(stored.price.stringValue == post["price"] as? String)
            let created = try #require(post["created"] as? [String: Any])
            let seconds = Double((created["seconds"] as? NSNumber)?.int64Value ?? 0) + ((created["nanoseconds"] as? NSNumber)?.doubleValue ?? 0) / 1e9
            #expect(abs(stored.created.timeIntervalSince1970 - seconds) < 1e-6)
        }
        // NaN and infinity survive as values.
        let ratings = authors.compactMap { $0["rating"] as? String }
        #expect(vault.objects(Author.self).filter { $0.rating.isNaN }.count == ratings.filter { $0 == "NaN" }.count)
        #expect(vault.objects(Author.self).filter { $0.rating == .infinity }.count == ratings.filter { $0 == "Infinity" }.count)
        // Queries see the imported data.
        let popular = posts.filter { ($0["views"] as? NSNumber)?.int64Value ?? 0 > 1000 }.count
        #expect(vault.objects(Post.self).filter("views > 1000").count == popular)

        // The typed vault exports to the fixture's JSON as well, plus the backlink the model
        // declares (listed as a linkingObjects property without values; the file has none).
        var export = try ImportFixtures.exportJSON(destination)
        var classes = try #require(export["classes"] as? [String: Any])
        var post = try #require(classes["Post"] as? [String: Any])
        let properties = try #require(post["properties"] as? [[String: Any]])
        let backlinks = properties.filter { $0["type"] as? String == "linkingObjects" }
        #expect(backlinks.map { $0["name"] as? String } == ["replies"])
        #expect(backlinks.first?["objectType"] as? String == "Comment" && backlinks.first?["originProperty"] as? String == "post")
        post["properties"] = properties.filter { $0["type"] as? String != "linkingObjects" }
        classes["Post"] = post
        export["classes"] = classes
        let differences = ImportFixtures.differences(export, expected)
        #expect(differences.isEmpty, "\(differences)")
    }

    @Test func aMismatchNamesTheClassAndPropertyAndWritesNothing() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("blog.vault")
        #expect {
            try Vault.importRealm(at: ImportFixtures.url("blog.realm"),
                                  into: ImportFixtures.configuration(destination, objectTypes: [Mismatched.Post.self]))
        } throws: { error in
            guard case .schemaMismatch(let className, let property, _) = error as? RealmImportError else { return false }
            return className == "Post" && (property == "views" || property == "title")
        }
        #expect(try ImportFixtures.files(in: directory.url).isEmpty)
    }

    /// Classes the models do not declare arrive as runtime classes, readable dynamically.
    @Test func undeclaredClassesBecomeRuntimeClasses() throws {
        let directory = try TemporaryDirectory("realm-import")
        let destination = directory.file("blog.vault")
        let summary = try Vault.importRealm(at: ImportFixtures.url("blog.realm"),
                                            into: ImportFixtures.configuration(destination, objectTypes: [Comment.self]))
        // Comment reaches Post, Post reaches Author, Author reaches Address: all are models.
        #expect(summary.runtimeClasses.isEmpty)
        let vault = try Vault(configuration: ImportFixtures.configuration(destination, objectTypes: [Comment.self], schemaVersion: 3))
        #expect(vault.objects(Comment.self).count == 4980)
    }
}
