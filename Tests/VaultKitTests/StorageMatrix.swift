import Foundation
import VaultKit
import VaultTestSupport

/// The key of the encrypted test vaults (a fixed, fake key).
let testKey = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

/// The storages every object-layer test runs against — the one matrix of
/// this target. Tests that write run on ``writable``; tests that only read
/// run on every case, read-only included (its data is written through a
/// writable configuration first, then the file is reopened read-only).
enum StorageMode: String, CaseIterable, CustomStringConvertible, Sendable {
    case encryptedFile, inMemory, readOnlyFile

    /// The storages a test can write to.
    static let writable: [StorageMode] = [.encryptedFile, .inMemory]

    var description: String { rawValue }

    /// A configuration of this storage in `directory`. For `readOnlyFile` it
    /// is the writable configuration of the same file (see ``readOnly(_:)``).
    func configuration(_ directory: TemporaryDirectory, types: [ObjectBase.Type], file: String = "objects.vault") -> Vault.Configuration {
        switch self {
        case .encryptedFile, .readOnlyFile:
            return Vault.Configuration(fileURL: directory.file(file), encryptionKey: testKey, objectTypes: types)
        case .inMemory:
            return Vault.Configuration(inMemoryIdentifier: "objects-\(UUID().uuidString)", objectTypes: types)
        }
    }

    /// Opens a vault of this storage holding what `populate` writes.
    func open(_ directory: TemporaryDirectory, types: [ObjectBase.Type], file: String = "objects.vault",
              populate: (Vault) throws -> Void) throws -> Vault {
        let configuration = configuration(directory, types: types, file: file)
        let vault = try Vault(configuration: configuration)
        try populate(vault)
        guard self == .readOnlyFile else { return vault }
        var readOnly = configuration
        readOnly.readOnly = true
        return try Vault(configuration: readOnly)
    }
}

/// The configuration of `mode` in `directory` (for tests that write).
func configuration(_ mode: StorageMode, _ directory: TemporaryDirectory, types: [ObjectBase.Type]) -> Vault.Configuration {
    mode.configuration(directory, types: types)
}
