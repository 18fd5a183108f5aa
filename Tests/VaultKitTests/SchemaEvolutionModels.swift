import Foundation
import VaultKit
import VaultTestSupport

// Models of the schema-evolution tests. The blog app is the seeds' textbook
// one: no objectTypes, a three-level link chain and an embedded object.

final class BlogUser: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: BlogAddress?
    @Persisted var posts: List<BlogPost>
}

final class BlogAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class BlogPost: Object {
    @Persisted var title = ""
    @Persisted var tags: List<BlogTag>
    @Persisted(originProperty: "posts") var authors: LinkingObjects<BlogUser>
}

final class BlogTag: Object {
    @Persisted var label = ""
    @Persisted var category: BlogCategory?
}

final class BlogCategory: Object {
    @Persisted var name = ""
}

/// A default value that is another object (realm-swift's own test models do this).
final class Kennel: Object {
    @Persisted var name = ""
    @Persisted var resident: KennelDog? = KennelDog()
}

final class KennelDog: Object {
    @Persisted var name = "Rex"
}

// One class, "Contact", at three schema versions (nested types share the class name).
enum ContactV0 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var age = 0
        @Persisted var nickname = ""
        @Persisted var friend: Contact?
        @Persisted var phones: List<String>
    }
}

enum ContactV1 {
    /// Added: `fullName` (required, computed by the migration), `email` (optional);
    /// removed: `firstName`, `lastName`; `age` became optional; `nickname`
    /// renamed `handle`; `phones` renamed `numbers`; `age` indexed.
    final class Contact: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var fullName = ""
        @Persisted(indexed: true) var age: Int?
        @Persisted var handle = ""
        @Persisted var email: String?
        @Persisted var friend: Contact?
        @Persisted var numbers: List<String>
    }
}

enum ContactV0Additive {
    /// V0 plus an optional property and an index: automatic, no version bump.
    final class Contact: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var firstName = ""
        @Persisted(indexed: true) var lastName = ""
        @Persisted var age = 0
        @Persisted var nickname = ""
        @Persisted var friend: Contact?
        @Persisted var phones: List<String>
        @Persisted var note: String?
    }
}

/// A private class: its Swift type cannot be found by name at open, so the
/// vault meets it at its first use (see `seedGadget` and the discovery tests).
private final class Gadget: Object {
    @Persisted var label = ""
}

/// Stores one private `Gadget` (with a `label`) in a vault without objectTypes.
func seedGadget(at url: URL) throws {
    try onNewThread {
        let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey))
        try vault.write { vault.add(Gadget(value: ["label": "first"])) }
    }
}

// "Part" becomes embedded between two versions; "Machine" holds parts.
enum PartsV0 {
    final class Part: Object {
        @Persisted var label = ""
    }
    final class Machine: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var parts: List<Part>
        @Persisted var spare: Part?
    }
}

enum PartsV1 {
    final class Part: EmbeddedObject {
        @Persisted var label = ""
    }
    final class Machine: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var parts: List<Part>
        @Persisted var spare: Part?
    }
}

// The notification models (NItem, NOwner) at schema version 1: a required
// `label` computed by the migration (the fault-injection workload migrates to it).
enum NotificationModelsV1 {
    final class NItem: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var score = 0
        @Persisted var owner: NOwner?
        @Persisted var label = ""
    }

    final class NOwner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var items: List<NItem>
        @Persisted var tags: MutableSet<String>
    }

    /// Version 1's configuration under `key`: the migration fills `label`.
    static func configuration(_ url: URL, key: Data) -> Vault.Configuration {
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: key, schemaVersion: 1, objectTypes: [NItem.self, NOwner.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "NItem") { old, new in new?["label"] = "label " + (old?["name"] as? String ?? "") }
        }
        return configuration
    }
}
