import Foundation
import VaultCore

// Realm's file-level conveniences: opening by URL, asking whether a vault's
// file exists, seeding a new vault from a prepared file, and reading a file's
// schema version without opening it for use.

extension Vault {
    /// Opens the vault at `fileURL`, with ``Configuration/defaultConfiguration``'s
    /// other settings (key, classes, schema version) — Realm's `Realm(fileURL:)`.
    ///
    /// - Parameters:
    ///   - fileURL: the vault's file.
    ///   - isolation: where the vault may be used; leave the default (the caller's actor).
    public convenience init(fileURL: URL, isolation: isolated (any Actor)? = #isolation) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration, isolation: isolation)
    }

    /// Whether the file of `configuration`'s vault exists (always false for an
    /// in-memory configuration) — Realm's `Realm.fileExists(for:)`.
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Copies ``Configuration/seedFilePath`` to the configuration's file when there is none yet.
    static func copySeedFileIfNeeded(_ configuration: Configuration) throws {
        guard let seed = configuration.seedFilePath, configuration.inMemoryIdentifier == nil,
              let url = configuration.fileURL, !FileManager.default.fileExists(atPath: url.path) else { return }
        guard FileManager.default.fileExists(atPath: seed.path) else {
            throw VaultError.invalidConfiguration("seedFilePath names \(seed.path), which does not exist")
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            // Copied beside the destination, then renamed: a crash leaves no half-copied vault.
            let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).seed-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: seed, to: partial)
            do {
                try FileManager.default.moveItem(at: partial, to: url)
            } catch {
                try? FileManager.default.removeItem(at: partial)
                // Another opener seeded it first: theirs is as good as ours.
                guard FileManager.default.fileExists(atPath: url.path) else { throw error }
            }
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError.invalidConfiguration("could not copy seedFilePath \(seed.lastPathComponent) to \(url.path): \(error.localizedDescription)")
        }
    }
}

/// The schema version stored in the vault at `fileURL` — Realm's
/// `schemaVersionAtURL(_:encryptionKey:)`. Opens the file read-only with
/// `encryptionKey` (64 bytes) through the storage core alone, so it works
/// whatever models the vault was written with.
///
/// - Throws: ``Vault/Error``, with Realm's codes: `.invalidDatabase` when no
///   vault was made there yet (Realm: "has not been initialized") or the file
///   is not one (or the key is wrong); `.fileAccess` for something that is not
///   a regular file (a directory, a device).
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isDirectory) else {
        throw Vault.Error(.invalidDatabase, underlyingError: VaultError.notAVault(path: fileURL.path, reason: "no vault has been initialized there"))
    }
    let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path)
    guard !isDirectory.boolValue, attributes?[.type] as? FileAttributeType == .typeRegular else {
        throw Vault.Error(.fileAccess, underlyingError: VaultError.io(path: fileURL.path, detail: "not a regular file"))
    }
    do {
        // The storage core only: no class is registered, so no schema check can refuse the file.
        let configuration = Vault.Configuration(fileURL: fileURL, encryptionKey: encryptionKey, readOnly: true, objectTypes: [])
        let database = try VaultDatabase(configuration: configuration.databaseConfiguration())
        return try database.withConnection { db in try SchemaPlan.storedSchemaVersion(on: db) } ?? 0
    } catch {
        throw Vault.Error.wrapping(error)
    }
}

extension ThreadSafeReference {
    /// Whether the reference can no longer be resolved (Realm's). A VaultKit
    /// reference holds no version and may be resolved any number of times, so
    /// this is always `false`; resolving it gives `nil` once its object (or a
    /// collection's owner) is deleted.
    public var isInvalidated: Bool { false }
}

extension SortDescriptor: CustomStringConvertible {
    /// `SortDescriptor(keyPath: name, direction: ascending)`, as Realm prints it.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}

extension ObjectId {
    /// An identifier from a literal of 24 hexadecimal digits — Realm's
    /// `ObjectId("507f191e810c19729de860ea")`. A literal that is not one is a
    /// programmer error and stops the program, as in Realm; parse text that
    /// comes from outside with ``init(string:)``, which throws.
    public init(_ literal: StaticString) {
        let text = literal.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do {
            try self.init(string: text)
        } catch {
            preconditionFailure("ObjectId(\"\(text)\"): not 24 hexadecimal digits")
        }
    }
}

extension Vault {
    /// Runs `configuration`'s migration now, if the vault's stored schema needs
    /// one, without keeping the vault open — Realm's `performMigration(for:)`.
    /// Opening a vault migrates it too; this lets an app migrate at a moment it chooses.
    ///
    /// - Throws: what opening throws (a failed migration, a wrong key, …).
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        _ = try Vault(configuration: configuration)
    }
}
