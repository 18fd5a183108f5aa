import Foundation
import VaultKit

/// An app setting whose value's type is chosen at run time: Realm's `AnyRealmValue`.
final class Setting: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var value: AnyVaultValue
}

/// Step 11: mixed values — a nested document stored, edited in place, and queried into.
func settingsWithMixedValues(in directory: URL, key: Data) throws {
    let url = directory.appendingPathComponent("settings.vault")
    for suffix in ["", "-wal", "-shm", ".notify"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    let vault = try Vault(configuration: Vault.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Setting.self]))
    try vault.write {
        vault.add(Setting(value: ["key": "launches", "value": AnyVaultValue.int(42)]))
        vault.add(Setting(value: ["key": "launchesAsText", "value": AnyVaultValue.string("42")]))
        vault.add(Setting(value: ["key": "appearance", "value": AnyVaultValue.fromDictionary([
            "theme": .string("dark"),
            "fontSizes": .fromArray([.int(12), .int(14)]),
        ])]))
    }
    let appearance = try vault.object(ofType: Setting.self, forPrimaryKey: "appearance").orThrow()
    try vault.write {
        // The nested list read from the managed object is live: this writes through.
        appearance.value.dictionaryValue?["fontSizes"]?.listValue?.append(.int(16))
    }
    let settings = vault.objects(Setting.self)
    let fortyTwo = settings.filter("value == 42").map(\.key)
    let large = settings.filter("value['fontSizes'][*] >= 16").map(\.key)
    let documents = settings.filter("value.@type == 'dictionary'").map(\.key)
    print(" 11. mixed values (AnyVaultValue): \(appearance.value)")
    print("       value == 42 matches \(fortyTwo) (the string \"42\" is not a number); "
        + "value['fontSizes'][*] >= 16 matches \(large); @type == 'dictionary' matches \(documents)")
}
