import Foundation
import VaultKit

/// A model as Realm apps wrote them before `@Persisted` (`RealmOptional` is
/// `VaultOptional`), and Codable, as Realm models often are.
final class Contact: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    var age = VaultOptional<Int>()
}

/// Collects what an observer on an actor reports.
actor ContactLog {
    private(set) var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
}

/// Step 14: a Realm app's code brought along — a pre-2021 model with a legacy
/// optional wrapper, decoded from an API's JSON with synthesized Codable, stored,
/// queried by the wrapped property, and observed on an actor
/// (`observe(keyPaths:on: actor)`), all with Realm's spellings.
func legacyCodeWithCodable(in directory: URL, key: Data) async throws {
    let url = directory.appendingPathComponent("contacts.vault")
    for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let configuration = Vault.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Contact.self])
    let contacts = try storeContacts(configuration)
    let log = ContactLog()
    // The block runs isolated to `log`, with the results read by a vault confined to it.
    let token = await contacts.observe(keyPaths: ["age"], on: log) { log, change in
        if case .update(let results, _, _, let modifications) = change {
            log.add("update at \(modifications): \(results.map { "\($0.name) \($0.age.value.map(String.init) ?? "?")" })")
        }
    }
    // This code may resume on another thread after an await: it opens a vault there.
    let writer = try Vault(configuration: configuration, isolation: nil)
    try writer.write { writer.object(ofType: Contact.self, forPrimaryKey: 3)?.age.value = 41 }
    for _ in 0..<200 where await log.lines.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
    token.invalidate()
    print("       an observer isolated to an actor heard: \(await log.lines.joined(separator: "; "))")
}

/// Decodes the API's JSON into the vault and returns the contacts sorted by id.
private func storeContacts(_ configuration: Vault.Configuration) throws -> Results<Contact> {
    let vault = try Vault(configuration: configuration, isolation: nil)
    let json = Data(#"[{"id": 1, "name": "Ada", "age": 36}, {"id": 2, "name": "Grace", "age": 85}, {"id": 3, "name": "Alan"}]"#.utf8)
    let contacts = try JSONDecoder().decode([Contact].self, from: json)
    try vault.write { vault.add(contacts) }
    let adults = vault.objects(Contact.self).filter("age > 40")
    print(" 14. a pre-2021 model (var age = VaultOptional<Int>()) decoded from JSON: \(vault.objects(Contact.self).count) contacts, "
          + "age > 40: \(adults.map(\.name)); Alan's age: \(String(describing: vault.object(ofType: Contact.self, forPrimaryKey: 3)?.age.value))")
    return vault.objects(Contact.self).sorted(byKeyPath: "id")
}
