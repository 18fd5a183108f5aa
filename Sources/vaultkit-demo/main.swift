// vaultkit-demo: the README's main job. Realm-style models in an encrypted vault,
// then what an attacker holding the files sees.
import Foundation
import VaultKit

enum Mood: String, PersistableEnum { case curious, busy, away }

final class Address: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
}

final class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var firstName = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var mood = Mood.curious
    @Persisted var address: Address?
    @Persisted var friends: List<Person>
    @Persisted var tags: MutableSet<String>
    @Persisted var metadata: Map<String, String>
    @Persisted(originProperty: "friends") var friendOf: LinkingObjects<Person>
    override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    convenience init(firstName: String, email: String, city: String) {
        self.init()
        self.firstName = firstName
        self.email = email
        self.address = Address(value: ["city": city, "country": "UK"])
    }
}

/// The app's first version of a note…
enum FirstRelease {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var text = ""
    }
}

/// …and its next one: `text` renamed `body`, a required `words` count added,
/// and a list of the note's words longer than eight letters.
enum NextRelease {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var body = ""
        @Persisted var words = 0
        @Persisted var keywords: List<String>
    }
}

/// Step 9: an app update whose models changed, migrated as the vault opens.
func migrateNotes(in directory: URL, key: Data) throws {
    let url = directory.appendingPathComponent("notes.vault")
    for suffix in ["", "-wal", "-shm", ".notify"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    // No objectTypes, as most Realm apps run: classes are found as they are used.
    let first = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key))
    try first.write {
        for (id, text) in ["encrypted at rest", "migrations in one transaction", "observers hear every change"].enumerated() {
            first.add(FirstRelease.Note(value: ["id": id, "text": text]))
        }
    }
    first.invalidate()
    var next = Vault.Configuration(fileURL: url, encryptionKey: key, schemaVersion: 1, objectTypes: [NextRelease.Note.self])
    next.migrationBlock = { migration, _ in
        migration.renameProperty(onType: "Note", from: "text", to: "body")
        migration.enumerateObjects(ofType: "Note") { old, new in
            let words = (old?["text"] as? String ?? "").split(separator: " ")
            new?["words"] = words.count
            // Realm's way to fill a list in a migration: the new object's List, written in place.
            if let keywords = new?["keywords"] as? List<String> {
                keywords.append(objectsIn: words.filter { $0.count > 8 }.map(String.init))
            }
        }
    }
    let started = Date()
    let migrated = try Vault(configuration: next)
    let elapsed = Date().timeIntervalSince(started) * 1000
    let notes = migrated.objects(NextRelease.Note.self).sorted(byKeyPath: "id")
    print(String(format: "  9. the next release renamed Note.text to body, added a word count and a list of keywords"
                 + " (filled through new[\"keywords\"] as? List<String>, as in Realm): migrated as the vault opened (%.1f ms, one transaction)", elapsed))
    for note in notes { print("       \(note.id): \"\(note.body)\" (\(note.words) words, keywords \(Array(note.keywords)))") }
}

func run() throws -> (directory: URL, key: Data) {
    let directory = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "vault-demo", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("people.vault")
    for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }

    print("VaultKit demo — \(url.path)")
    var keyBytes = [UInt8](repeating: 0, count: 64)
    _ = try MasterKey.generate().withUnsafeBytes { keyBytes = Array($0) }
    let key = Data(keyBytes)
    var config = Vault.Configuration(fileURL: url, encryptionKey: key)
    config.objectTypes = [Person.self]
    Vault.Configuration.defaultConfiguration = config
    print("  1. generated a 64-byte key and set it in Vault.Configuration.defaultConfiguration")

    let vault = try Vault()
    let ada = Person(firstName: "Ada", email: "ada@example.org", city: "London")
    let grace = Person(firstName: "Grace", email: "grace@example.org", city: "Arlington")
    ada.friends.append(grace)
    ada.tags.insert("mathematics")
    ada.metadata["secret"] = "the analytical engine's password is 'bernoulli'"
    try vault.write { vault.add(ada) }
    print("  2. wrote \(vault.objects(Person.self).count) people: an embedded Address, an enum, a List, a MutableSet, a Map, a remapped property")

    let loaded = try vault.object(ofType: Person.self, forPrimaryKey: ada._id).orThrow()
    print("  3. read back: \(loaded.firstName) <\(loaded.email)> in \(loaded.address?.city ?? "?"), mood \(loaded.mood), "
          + "friends \(loaded.friends.map(\.firstName)), tags \(Array(loaded.tags)), metadata keys \(loaded.metadata.keys)")
    try vault.write { loaded.mood = .busy }
    print("  4. updated mood to \(ada.mood) (every managed instance sees it); \(grace.firstName) is a friend of \(grace.friendOf.map(\.firstName))")

    let people = vault.objects(Person.self)
    let query = people.filter("firstName BEGINSWITH[c] %@ AND ANY friends.address.city == %@", "a", "Arlington")
    let typed = people.where { $0.address.city == "London" && $0.tags.contains("mathematics") }
    print("  5. queried (string and typed forms, compiled to SQL with bound values): \(query.map(\.firstName)), \(typed.map(\.firstName)); "
          + "sorted by city: \(people.sorted(byKeyPath: "address.city").map(\.firstName))")

    // An observer on this thread hears a commit made on another thread, with
    // Realm's index conventions (deletions/modifications: old indices; insertions: new).
    let byName = people.sorted(byKeyPath: "firstName")
    var heard: [String] = []
    let token = byName.observe { change in
        switch change {
        case .initial(let results):
            heard.append("initial \(results.map(\.firstName))")
        case .update(let results, let deletions, let insertions, let modifications):
            heard.append("update \(results.map(\.firstName)): deletions \(deletions), insertions \(insertions), modifications \(modifications)")
        case .error(let error):
            heard.append("error \(error)")
        }
    }
    vault.refresh()                       // an advance point: delivers .initial
    let graceID = grace._id
    let sharedConfiguration = config      // Vault.Configuration is Sendable
    let done = DispatchSemaphore(value: 0)
    Thread {
        defer { done.signal() }
        guard let background = try? Vault(configuration: sharedConfiguration) else { return }   // another instance, its own connections
        try? background.write {
            background.add(Person(firstName: "Barbara", email: "barbara@example.org", city: "Cambridge"))
            background.object(ofType: Person.self, forPrimaryKey: graceID)?.mood = .away
        }
    }.start()
    done.wait()
    let before = byName.count             // still the version this vault reads
    vault.refresh()                       // takes in the other thread's commit and delivers the update
    token.invalidate()
    print("  6. an observer of people sorted by name (\(before) before refresh(), \(byName.count) after) heard:\n       "
          + heard.joined(separator: "\n       "))

    var scanned = 0
    for suffix in ["", "-wal", "-shm"] {
        guard let bytes = FileManager.default.contents(atPath: url.path + suffix) else { continue }
        scanned += bytes.count
        for needle in ["bernoulli", "ada@example.org", "London"] where bytes.range(of: Data(needle.utf8)) != nil {
            throw DemoError("plaintext '\(needle)' found in \(url.lastPathComponent)\(suffix) — this is a bug")
        }
    }
    print("  7. searched the vault's files (\(scanned) bytes) for the stored text: not found")

    var wrongKey = config
    wrongKey.encryptionKey = Data((0..<64).map { _ in UInt8.random(in: 0...255) })
    do {
        _ = try Vault(configuration: wrongKey)
        throw DemoError("a wrong key opened the vault — this is a bug")
    } catch let error as Vault.Error where error.code == .invalidDatabase {
        // Realm's code (a wrong key is an invalid database); VaultKit's error underneath says which.
        print("  8. a wrong key is refused:\n       \(error)")
    }
    try migrateNotes(in: directory, key: key)
    return (directory, key)
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Optional {
    func orThrow() throws -> Wrapped {
        guard let self else { throw DemoError("expected a value") }
        return self
    }
}

do {
    let (directory, key) = try run()
    try await journalOnAnActor(in: directory, key: key)
    try settingsWithMixedValues(in: directory, key: key)
    try todoListWithCombine(in: directory, key: key)
    try importRealmFile(in: directory, key: key)
    try await legacyCodeWithCodable(in: directory, key: key)
    try await syncBetweenDevices(in: directory, key: key)
} catch {
    FileHandle.standardError.write(Data("vaultkit-demo: \(error)\n".utf8))
    exit(1)
}
