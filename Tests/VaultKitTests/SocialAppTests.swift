import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

/// The data layer of a small social app, written the way a Realm app writes it
/// (only `Realm` renamed to `Vault`).
final class SocialRepository {
    let vault: Vault
    init(vault: Vault) { self.vault = vault }

    @discardableResult
    func register(handle: String, name: String, city: String, role: Role = .member) throws -> User {
        let user = User(handle: handle, name: name)
        user.role = role
        user.address = Address(value: ["street": "1 Main St", "city": city, "country": "NO"])
        user.metadata["signup"] = "web"
        try vault.write { vault.add(user) }
        return user
    }

    func user(id: ObjectId) -> User? { vault.object(ofType: User.self, forPrimaryKey: id) }

    @discardableResult
    func post(by author: User, body: String, tags: [String]) throws -> Post {
        let post = Post()
        post.author = author
        post.body = body
        try vault.write {
            for name in tags {
                let tag = vault.object(ofType: Tag.self, forPrimaryKey: name) ?? vault.create(Tag.self, value: ["name": name])
                post.tags.insert(tag)
            }
            vault.add(post)
        }
        return post
    }

    @discardableResult
    func comment(on post: Post, by author: User, text: String, replyingTo parent: Comment? = nil) throws -> Comment {
        let comment = Comment(value: ["_id": UUID(), "text": text])
        comment.author = author
        try vault.write {
            if let parent { parent.replies.append(comment) } else { post.comments.append(comment) }
        }
        return comment
    }

    func follow(_ follower: User, _ followed: User) throws {
        try vault.write { follower.following.append(followed) }
    }

    /// A page of posts, newest first.
    func feed(page: Int, pageSize: Int) -> [Post] {
        let posts = vault.objects(Post.self).sorted(byKeyPath: "created", ascending: false)
        let start = page * pageSize
        guard start < posts.count else { return [] }
        return Array(posts[start..<min(start + pageSize, posts.count)])
    }

    func archive(_ post: Post) throws { try vault.write { post.status = .archived } }

    func deleteUser(_ user: User) throws {
        try vault.write {
            vault.delete(user.posts)
            vault.delete(user)
        }
    }
}

@Suite("A social app's repository flows")
struct SocialAppTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory() }

    @Test("create, read by key, update, delete, counts and pagination", arguments: StorageMode.writable)
    func flows(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: socialTypes))
        let repository = SocialRepository(vault: vault)
        let ada = try repository.register(handle: "ada", name: "Ada Lovelace", city: "London", role: .admin)
        let grace = try repository.register(handle: "grace", name: "Grace Hopper", city: "Arlington", role: .moderator)
        let alan = try repository.register(handle: "alan", name: "Alan Turing", city: "Manchester")
        try repository.follow(grace, ada)
        try repository.follow(alan, ada)
        try repository.follow(ada, grace)

        var posts: [Post] = []
        for i in 0..<25 {
            let author = [ada, grace, alan][i % 3]
            let post = try repository.post(by: author, body: "post \(i)", tags: i % 2 == 0 ? ["swift", "storage"] : ["swift"])
            try vault.write { post.created = Date(timeIntervalSinceReferenceDate: Double(1000 + i)) }
            posts.append(post)
        }
        let first = try repository.comment(on: posts[0], by: grace, text: "Nice!")
        try repository.comment(on: posts[0], by: ada, text: "Thanks", replyingTo: first)

        // Read by key.
        let loaded = try #require(repository.user(id: ada._id))
        #expect(loaded.displayName == "Ada Lovelace" && loaded.role == .admin && loaded.address?.city == "London")
        #expect(loaded.metadata["signup"] == "web")
        #expect(Set(loaded.followers.map(\.handle)) == ["grace", "alan"])
        #expect(loaded.posts.count == 9)

        // Counts.
        #expect(vault.objects(User.self).count == 3)
        #expect(vault.objects(Post.self).count == 25)
        #expect(vault.objects(Tag.self).count == 2)
        #expect(try #require(vault.object(ofType: Tag.self, forPrimaryKey: "storage")).posts.count == 13)
        #expect(posts[0].comments.first?.replies.first?.text == "Thanks")
        #expect(first.post.first?.body == "post 0")

        // Pagination by index ranges, newest first.
        #expect(repository.feed(page: 0, pageSize: 10).map(\.body) == (15..<25).reversed().map { "post \($0)" })
        #expect(repository.feed(page: 2, pageSize: 10).map(\.body) == (0..<5).reversed().map { "post \($0)" })
        #expect(repository.feed(page: 3, pageSize: 10).isEmpty)

        // Update.
        try repository.archive(posts[3])
        #expect(vault.objects(Post.self).filter { $0.status == .archived }.count == 1)
        try vault.write { ada.address?.city = "Marylebone" }
        #expect(repository.user(id: ada._id)?.address?.city == "Marylebone")

        // Delete: the user's posts go, their comments lose the author, follow lists shrink.
        try repository.deleteUser(ada)
        #expect(ada.isInvalidated)
        #expect(vault.objects(User.self).count == 2)
        #expect(vault.objects(Post.self).count == 16)
        #expect(grace.following.isEmpty)
        #expect(vault.objects(Comment.self).first { $0.text == "Thanks" }?.author == nil)
        #expect(try vault.session.database.read { db in try db.fetchOne("SELECT count(*) FROM Address")?[0].int64 } == 2)
    }
}
