import Foundation
import Testing
import VaultCore
@testable import VaultKit
import VaultTestSupport

// A property declared without an initial value takes its type's default as
// realm-swift gives it (`_rlmDefaultValue`: the type's `init()`, made on first
// use): a `Date` is the moment the object first reads or stores it, a `UUID`
// a new one per object. A column a migration adds holds Realm Core's zero of
// the type in the objects stored before it: 1970-01-01, all-zero UUID bytes.

final class TDEvent: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var when: Date
    @Persisted var token: UUID
}

enum TDEventV0 {
    final class TDLog: Object {
        @Persisted(primaryKey: true) var id = 0
    }
}

enum TDEventV1 {
    final class TDLog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var when: Date
        @Persisted var token: UUID
        @Persisted var key: ObjectId
    }
}

@Suite("Type defaults: Realm's for new objects, Realm Core's zero for added columns")
struct TypeDefaultsTests {
    @Test("an undeclared Date is the moment of first use, then stays; a UUID is new per object")
    func unmanagedDefaults() throws {
        let before = Date()
        let event = TDEvent()
        let first = event.when
        let after = Date()
        #expect(first >= before && first <= after, "the moment it was first read, as Realm's Date()")
        #expect(event.when == first, "made once, then kept")
        #expect(TDEvent().token != TDEvent().token)

        let directory = try TemporaryDirectory("type-defaults")
        let vault = try Vault(configuration: Vault.Configuration(fileURL: directory.file("d.vault"), encryptionKey: testKey, objectTypes: [TDEvent.self]))
        let beforeAdd = Date()
        try vault.write { vault.add(TDEvent(value: ["id": 1])) }
        let afterAdd = Date()
        let stored = try #require(vault.object(ofType: TDEvent.self, forPrimaryKey: 1))
        #expect(stored.when >= beforeAdd && stored.when <= afterAdd, "never read before add: made when stored")
    }

    @Test("a required Date, UUID or ObjectId added by a migration is Realm Core's zero in the objects stored before")
    func addedColumnsHoldZero() throws {
        let directory = try TemporaryDirectory("type-defaults-migration")
        let url = directory.file("log.vault")
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, objectTypes: [TDEventV0.TDLog.self]))
            try vault.write { for id in 1...2 { vault.add(TDEventV0.TDLog(value: ["id": id])) } }
        }
        try onNewThread {
            let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: testKey, schemaVersion: 1,
                                                                     objectTypes: [TDEventV1.TDLog.self]))
            let logs = vault.objects(TDEventV1.TDLog.self)
            #expect(logs.count == 2)
            #expect(logs.allSatisfy { $0.when == Date(timeIntervalSince1970: 0) })
            #expect(logs.allSatisfy { $0.token.uuidString == "00000000-0000-0000-0000-000000000000" })
            #expect(logs.allSatisfy { $0.key.stringValue == "000000000000000000000000" })
        }
    }
}
