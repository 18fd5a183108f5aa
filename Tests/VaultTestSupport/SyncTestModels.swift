import Foundation
import VaultKit

// The models of the sync tests, shared with VaultTestHelper (the child
// process that the kill tests stop in the middle of applying change sets).

public final class SyncNote: Object {
    @Persisted(primaryKey: true) public var id = ""
    @Persisted public var title = ""
    @Persisted public var rank = 0
    @Persisted public var score: Double?
    @Persisted public var author: SyncPerson?
    @Persisted public var tags: List<String>
    @Persisted public var labels: MutableSet<String>
    @Persisted public var counts: Map<String, Int>
    @Persisted public var related: List<SyncPerson>
    @Persisted public var place: SyncPlace?
    @Persisted public var stops: List<SyncStop>
    @Persisted public var stopsByDay: Map<String, SyncStop?>
    @Persisted public var extra: AnyVaultValue
    @Persisted public var extras: List<AnyVaultValue>
}

public final class SyncStop: EmbeddedObject {
    @Persisted public var name = ""
    @Persisted public var minutes = 0
    @Persisted public var guide: SyncPerson?
}

public final class SyncPlace: EmbeddedObject {
    @Persisted public var city = ""
    @Persisted public var zip: Int?
    @Persisted public var geo: SyncGeo?
}

public final class SyncGeo: EmbeddedObject {
    @Persisted public var latitude = 0.0
}

public final class SyncPerson: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted public var name = ""
}

public final class SyncReading: AsymmetricObject {
    @Persisted(primaryKey: true) public var id = ObjectId.generate()
    @Persisted public var celsius = 0.0
}

public let syncTestTypes: [ObjectBase.Type] = [SyncNote.self, SyncPerson.self, SyncReading.self, SyncPlace.self, SyncGeo.self, SyncStop.self]

