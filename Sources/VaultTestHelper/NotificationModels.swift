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
