import Foundation
import Testing
import VaultCore
import VaultInterchange
import VaultKit
import VaultRealmImport
import VaultTestSupport

/// The Realm files the import tests read: the reader's copies of the blog and alltypes
/// fixtures, and this target's copies of `bulk` and the two older-format files.
enum ImportFixtures {
    static let testRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let local = testRoot.appendingPathComponent("Fixtures")
    static let reader = testRoot.deletingLastPathComponent().appendingPathComponent("RealmFileReaderTests/Fixtures")

    /// A fixture by name, wherever it is kept.
    static func url(_ name: String) -> URL {
        let here = local.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: here.path) ? here : reader.appendingPathComponent(name)
    }

    /// Realm's 64-byte key of `blog-encrypted.realm` (bytes 00 01 … 3f).
    static func blogKey() throws -> Data {
        let hex = try String(contentsOf: url("blog-encrypted.key.hex"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        return Data(bytes)
    }

    static func json(_ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url(name))) as? [String: Any])
    }

    /// A fixed vault key for the tests.
    static let vaultKey = Data((0..<64).map { UInt8(255 - $0) })

    static func configuration(_ url: URL, objectTypes: [ObjectBase.Type]? = nil, schemaVersion: UInt64 = 0) -> Vault.Configuration {
        var configuration = Vault.Configuration(fileURL: url, encryptionKey: vaultKey, schemaVersion: schemaVersion, objectTypes: objectTypes)
        configuration.observationTracking = false
        return configuration
    }

    /// The canonical JSON of the vault at `url`, opened without models at the version it stores.
    static func exportJSON(_ url: URL) throws -> [String: Any] {
        let version = try schemaVersionAtURL(url, encryptionKey: vaultKey)
        let vault = try Vault(configuration: configuration(url, schemaVersion: version))
        let text = try CanonicalJSONExport.string(of: vault)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Differences between an export and a fixture's JSON (empty: equal by the README's rules).
    static func differences(_ actual: [String: Any], _ expected: [String: Any]) -> String {
        JSONComparison(actual: actual, expected: expected).differences.joined(separator: "\n")
    }

    /// Every file in `directory` (hidden ones too): what an import left behind.
    static func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}
