import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

let socialTypes: [ObjectBase.Type] = [User.self, Post.self, Comment.self, Tag.self, Address.self]

@Suite("Collections, embedded objects and backlinks")
struct CollectionTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory() }

    @Test("lists: append, insert, move, remove, replace, removeAll; objects and values", arguments: StorageMode.writable)
    func lists(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: socialTypes))
        let ada = User(handle: "ada"), grace = User(handle: "grace"), alan = User(handle: "alan")
        ada.following.append(grace)                 // unmanaged list: added with ada
        try vault.write { vault.add(ada) }
        #expect(ada.following.map(\.handle) == ["grace"])
        try vault.write {
            ada.following.append(alan)
            ada.following.insert(User(handle: "edsger"), at: 0)
        }
        #expect(ada.following.map(\.handle) == ["edsger", "grace", "alan"])
        try vault.write { ada.following.move(from: 0, to: 2) }
        #expect(ada.following.map(\.handle) == ["grace", "alan", "edsger"])
        try vault.write { ada.following.remove(at: 1) }
        #expect(ada.following.map(\.handle) == ["grace", "edsger"])
        try vault.write { ada.following.replace(index: 0, object: alan) }
        #expect(ada.following.map(\.handle) == ["alan", "edsger"])
        #expect(ada.following.index(of: alan) == 0)
        try vault.write { ada.following.swapAt(0, 1) }
        #expect(ada.following.map(\.handle) == ["edsger", "alan"])
        // Deleting an object removes it from every list that holds it.
        try vault.write { vault.delete(alan) }
        #expect(ada.following.map(\.handle) == ["edsger"])
        try vault.write { ada.following.removeAll() }
        #expect(ada.following.isEmpty)
        #expect(vault.objects(User.self).count == 3, "removing from a list deletes no object")
    }

    @Test("sets: distinct values, union, intersection, subtraction", arguments: StorageMode.writable)
    func sets(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: socialTypes))
        let user = User(handle: "u")
        user.interests.insert("swift")
        user.interests.insert("swift")
        try vault.write { vault.add(user) }
        #expect(user.interests.count == 1)
        try vault.write {
            user.interests.formUnion(["rust", "swift", "sqlite"])
        }
        #expect(Set(user.interests) == ["swift", "rust", "sqlite"])
        try vault.write { user.interests.formIntersection(["swift", "sqlite", "go"]) }
        #expect(Set(user.interests) == ["swift", "sqlite"])
        try vault.write { user.interests.subtract(["sqlite"]) }
        #expect(Array(user.interests) == ["swift"])
        #expect(user.interests.contains("swift") && !user.interests.contains("go"))
        #expect(user.interests.isSubset(of: ["swift", "go"]))

        let post = Post()
        let tag = Tag(value: ["name": "news"])
        post.tags.insert(tag)
        post.tags.insert(tag)
        try vault.write { vault.add(post) }
        #expect(post.tags.count == 1)
        #expect(tag.posts.count == 1, "many-to-many backlink")
    }

    @Test("maps: set, update, remove, merge, key rules, optional values", arguments: StorageMode.writable)
    func maps(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: socialTypes))
        let user = User(handle: "m")
        user.metadata["theme"] = "dark"
        try vault.write { vault.add(user) }
        #expect(user.metadata["theme"] == "dark")
        try vault.write {
            user.metadata["lang"] = "en"
            user.metadata["theme"] = "light"
            user.scores["a"] = 1
            user.scores["b"] = .some(nil)
        }
        #expect(user.metadata.keys == ["lang", "theme"])
        #expect(user.metadata.values == ["en", "light"])
        #expect(user.metadata.asKeyValueSequence().map { "\($0.key)=\($0.value)" } == ["lang=en", "theme=light"])
        #expect(user.scores.count == 2 && user.scores["b"] == .some(nil) && user.scores["a"] == 1)
        try vault.write {
            user.metadata.merge(["lang": "fr", "tz": "UTC"])
            user.metadata["theme"] = nil
        }
        #expect(user.metadata.keys == ["lang", "tz"] && user.metadata["lang"] == "fr")
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write { user.metadata["a.b"] = "x" }
        }
        guard case .invalidValue(_, "metadata", let reason)? = error else { Issue.record("expected invalidValue"); return }
        #expect(reason.contains("'.'"))
        #expect(throws: VaultObjectError.self) { try vault.write { user.metadata["$x"] = "x" } }
        #expect(user.metadata.keys == ["lang", "tz"], "the failed writes changed nothing")
    }

    @Test("embedded objects: stored with the owner, deleted with it or when replaced", arguments: StorageMode.writable)
    func embedded(mode: StorageMode) throws {
        let vault = try Vault(configuration: configuration(mode, scratch, types: socialTypes))
        let user = User(handle: "e")
        user.address = Address(value: ["street": "1 Main St", "city": "Oslo", "country": "NO"])
        user.previousAddresses.append(Address(value: ["city": "Bergen"]))
        user.previousAddresses.append(Address(value: ["city": "Tromsø"]))
        try vault.write { vault.add(user) }
        func embeddedCount() throws -> Int64 {
            try vault.session.database.read { db in try db.fetchOne("SELECT count(*) FROM Address")?[0].int64 ?? -1 }
        }
        #expect(try embeddedCount() == 3)
        #expect(user.address?.city == "Oslo")
        try vault.write { user.address?.city = "Trondheim" }
        #expect(user.address?.city == "Trondheim")
        try vault.write { user.previousAddresses.move(from: 0, to: 1) }
        #expect(user.previousAddresses.map(\.city) == ["Tromsø", "Bergen"], "moving keeps embedded rows")
        #expect(try embeddedCount() == 3)
        try vault.write { user.address = Address(value: ["city": "Stavanger"]) }
        #expect(try embeddedCount() == 3, "the replaced embedded object was deleted")
        try vault.write { user.previousAddresses.remove(at: 0) }
        #expect(try embeddedCount() == 2)
        let error = #expect(throws: VaultObjectError.self) {
            try vault.write {
                let other = User(handle: "other")
                other.address = user.address      // a managed embedded object has one owner
                vault.add(other)
            }
        }
        #expect(error != nil)
        try vault.write { vault.delete(user) }
        #expect(try embeddedCount() == 0, "embedded objects are deleted with their owner")
    }

    @Test("backlinks follow to-one, list and set links")
    func backlinks() throws {
        let vault = try Vault(configuration: configuration(.encryptedFile, scratch, types: socialTypes))
        let ada = User(handle: "ada"), grace = User(handle: "grace")
        let post = Post()
        post.author = ada
        post.body = "hello"
        grace.following.append(ada)
        try vault.write {
            vault.add(post)
            vault.add(grace)
        }
        #expect(ada.posts.map(\.body) == ["hello"])
        #expect(ada.followers.map(\.handle) == ["grace"])
        try vault.write { vault.delete(post) }
        #expect(ada.posts.isEmpty)
    }

    @Test("an originProperty that does not link back is an invalid model")
    func badOrigin() throws {
        let error = #expect(throws: Vault.Error.self) {
            _ = try Vault(configuration: configuration(.inMemory, scratch, types: [BadOrigin.self, Person.self]))
        }
        #expect(error?.code == .schemaMismatch && (error?.underlyingError as? VaultObjectError) != nil)
        #expect(error?.description.contains("originProperty 'nope' is not a property of Person that links to BadOrigin") == true)
    }

    @Test("collections from Object(value:) and detached copies")
    func valuesAndCopies() throws {
        let vault = try Vault(configuration: configuration(.inMemory, scratch, types: socialTypes))
        let user = User(value: ["handle": "v", "interests": ["a", "b"], "metadata": ["k": "v"]])
        #expect(user.interests.count == 2 && user.metadata["k"] == "v")
        try vault.write { vault.add(user) }
        let copy = User(value: user)
        #expect(copy.vault == nil && copy.handle == "v" && copy.interests.count == 2 && copy.metadata["k"] == "v")
        try vault.write { user.handle = "changed" }
        #expect(copy.handle == "v", "a detached copy does not follow the vault")
    }
}
