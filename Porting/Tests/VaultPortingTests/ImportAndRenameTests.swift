import Testing
import VaultPorting

@Suite("Rules 1 and 2: imports and type renames")
struct ImportAndRenameTests {
    @Test func importsBecomeVaultKitOnce() {
        let input = """
            import Foundation
            import RealmSwift
            import Realm
            // the UI
            import SwiftUI
            """
        #expect(ported(input) == """
            import Foundation
            import VaultKit
            // the UI
            import SwiftUI
            """)
    }

    @Test func typeRenamesKeepTheUsersOwnNames() {
        let input = """
            func open(realmManager: RealmManager) throws -> Realm {
                let realm = try Realm(configuration: Realm.Configuration.defaultConfiguration)
                let items: AnyRealmCollection<Item> = AnyRealmCollection(realm.objects(Item.self))
                let value: AnyRealmValue = .int(3)
                var config = RealmSwift.Realm.Configuration(deleteRealmIfMigrationNeeded: true)
                config.deleteRealmIfMigrationNeeded = false
                realm.add(Item(), update: Realm.UpdatePolicy.all)
                print(realmManager.realm, items, value)
                return realm
            }
            func changed(_ change: RealmCollectionChange<Results<Item>>, _ map: RealmMapChange<Map<String, Int>>) {}
            struct Box<C: RealmCollection, K: RealmKeyedCollection> { let publisher = RealmPublishers.self }
            """
        #expect(ported(input) == """
            func open(realmManager: RealmManager) throws -> Vault {
                let realm = try Vault(configuration: Vault.Configuration.defaultConfiguration)
                let items: AnyVaultCollection<Item> = AnyVaultCollection(realm.objects(Item.self))
                let value: AnyVaultValue = .int(3)
                var config = VaultKit.Vault.Configuration(deleteVaultIfMigrationNeeded: true)
                config.deleteVaultIfMigrationNeeded = false
                realm.add(Item(), update: UpdatePolicy.all)
                print(realmManager.realm, items, value)
                return realm
            }
            func changed(_ change: VaultCollectionChange<Results<Item>>, _ map: VaultMapChange<Map<String, Int>>) {}
            struct Box<C: VaultCollection, K: VaultKeyedCollection> { let publisher = VaultPublishers.self }
            """)
    }

    @Test func commentsAndFormattingSurvive() {
        let input = """
            /* keep */ let   realm:Realm? = nil   // trailing
            """
        #expect(ported(input) == """
            /* keep */ let   realm:Vault? = nil   // trailing
            """)
    }

    @Test func aRealmSubmoduleIsReported() {
        let result = Porter.port(source: "import Realm.Private\n", file: "A.swift")
        #expect(result.ported == "// vault port: `Realm.Private` has no VaultKit counterpart\nimport Realm.Private\n")
        #expect(result.notPortable == [NotPortable(file: "A.swift", line: 1, reason: "`Realm.Private` has no VaultKit counterpart")])
    }

    @Test func notificationTypeBecomesTopLevel() {
        #expect(ported("let block: (Realm.Notification, Realm) -> Void = { _, _ in }")
                == "let block: (VaultNotification, Vault) -> Void = { _, _ in }")
    }

    @Test func realmAccessorsOfModelsAndResultsBecomeVault() {
        let input = """
            class Dog: Object {}
            func f(dog: Dog, results: Results<Dog>, manager: Manager) {
                print(dog.realm, results.realm?.configuration, manager.realm)
            }
            """
        #expect(ported(input) == """
            class Dog: Object {}
            func f(dog: Dog, results: Results<Dog>, manager: Manager) {
                print(dog.vault, results.vault?.configuration, manager.realm)
            }
            """)
    }

    @Test func realmErrorBecomesVaultError() {
        let input = """
            do {
                _ = try Realm()
            } catch Realm.Error.fileNotFound {
                print("missing")
            } catch let error as Realm.Error where error.code == .fail {
                print(error)
            } catch {}
            """
        let result = Porter.port(source: input, file: "Errors.swift")
        #expect(result.ported.contains("catch Vault.Error.fileNotFound"))
        #expect(result.ported.contains("catch let error as Vault.Error where error.code == .fail"))
        #expect(result.ported.contains("_ = try Vault()"))
        #expect(result.notPortable.isEmpty)
    }
}

@Suite("Rule 4: APIs VaultKit has in another shape are marked with what to use")
struct UnsupportedAPITests {
    @Test func swiftUIWrappersAndEnvironmentAreMarked() {
        let input = """
            struct ItemsView: View {
                @ObservedResults(Item.self) var items
                @ObservedRealmObject var group: Group
                @Environment(\\.realm) var realm
                var body: some View {
                    List(items) { Text($0.name) }
                        .environment(\\.realmConfiguration, config)
                }
            }
            """
        let result = Porter.port(source: input, file: "ItemsView.swift")
        #expect(result.notPortable.map(\.line) == [2, 3, 4, 7])
        #expect(result.ported.contains("    // vault port: `@ObservedResults` has no VaultKit wrapper"))
        #expect(result.ported.components(separatedBy: "// vault port:").count == 5, "\(result.ported)")
        #expect(result.ported.contains("@ObservedResults(Item.self) var items"), "the code itself is left as written")
        #expect(result.notPortable[2].reason.contains("\\.realm`") && result.notPortable[3].reason.contains("\\.realmConfiguration"))
    }

    @Test func deviceSyncIsMarkedAndLookalikesAreNot() {
        let input = """
            @main struct NotesApp: App {
                var body: some Scene { WindowGroup { ContentView() } }
            }
            let app = App(id: "notes-abcde")
            func open(user: User) async throws -> Realm {
                let config = user.flexibleSyncConfiguration()
                let old = user.configuration(partitionValue: "p")
                let mine = settings.configuration(named: "x")
                let path = \\Settings.realm
                return try await Realm(configuration: config)
            }
            """
        let result = Porter.port(source: input, file: "NotesApp.swift")
        #expect(result.notPortable.map(\.line) == [4, 6, 7])
        #expect(result.notPortable.allSatisfy { $0.reason.contains("VaultSync") })
        #expect(result.ported.contains("@main struct NotesApp: App {\n"), "SwiftUI's App protocol is not Realm's App")
    }
}
