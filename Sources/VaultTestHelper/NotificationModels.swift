import VaultKit

// The notification tests' models (Tests/VaultKitTests/NotificationTests.swift),
// declared identically so that this process opens the same schema.

final class NItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0
    @Persisted var owner: NOwner?
}

final class NOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var items: List<NItem>
    @Persisted var tags: MutableSet<String>
}

// The migration tests' "Contact" at version 1 (Tests/VaultKitTests/SchemaEvolutionModels.swift, ContactV1).
enum ContactV1 {
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
