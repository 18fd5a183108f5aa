import Foundation
import VaultCore

/// An encrypted object store: Realm's `Realm`, renamed.
///
/// ```swift
/// var config = Vault.Configuration(fileURL: url, encryptionKey: key64)
/// config.objectTypes = [Person.self]
/// let vault = try Vault(configuration: config)
/// try vault.write { vault.add(Person(firstName: "Ada"), update: .modified) }
/// let people = vault.objects(Person.self)
/// ```
///
/// ## Threads
/// A `Vault` and its managed objects belong to the thread that made them; open
/// another `Vault` with the same configuration on each thread.
///
/// ## Errors
/// Writes are transactional: ``write(_:)`` throws the first error met inside
/// its block (a duplicate primary key, a deleted object, an I/O or integrity
/// failure) and rolls everything back. Reads that cannot throw (property
/// getters, `count`, iteration) stop the process with a message if the vault
/// turns out to be damaged mid-read — they never return different data. Call
/// `try vault.verify()` (at launch, say) to find damage as a thrown error.
///
/// Modifying a managed object outside a write transaction is a programmer
/// error and traps, naming the class and property, as in Realm.
public final class Vault {
    /// The configuration the vault was opened with.
    public let configuration: Configuration
    /// The file path, or the in-memory name.
    public private(set) var path: String
    // State shared by the extensions in Vault+*.swift (internal for that reason only).
    var database: VaultDatabase
    /// Bumped by every write through this vault and by refreshes that see other commits.
    var contentVersion: UInt64 = 1
    /// SQLite's `data_version` at the last look: it moves when another connection commits.
    var dataVersion: Int64 = 0
    var schemas: [ObjectIdentifier: ObjectSchema] = [:]
    var schemasByName: [String: ObjectSchema] = [:]
    /// Classes registered in a read-only vault that has no table for them: they read as empty.
    var absentClasses: Set<String> = []
    var writeDepth = 0
    /// The writer connection, held from `beginWrite` to commit or cancel, and the thread holding it.
    var borrowedWriter: Database?
    var borrowingThread: UInt = 0
    /// The first error of the current write transaction; `commitWrite` throws it.
    var deferredError: Error?

    /// Opens the vault of `Vault.Configuration.defaultConfiguration`.
    public convenience init() throws {
        try self.init(configuration: .defaultConfiguration)
    }

    /// Opens (creating if needed) the vault described by `configuration`, and
    /// checks the stored schema against the code's.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        var databaseConfiguration = try configuration.databaseConfiguration()
        databaseConfiguration.maximumReaderCount = 2
        let opened = try VaultDatabase(configuration: databaseConfiguration)
        database = opened
        path = opened.path
        do {
            try prepareStorage()
        } catch let error as VaultObjectError {
            guard case .migrationRequired = error, configuration.deleteVaultIfMigrationNeeded,
                  case .file(let url) = databaseConfiguration.storage else { throw error }
            database.close()
            schemas = [:]
            schemasByName = [:]
            Vault.deleteFiles(at: url)
            database = try VaultDatabase(configuration: databaseConfiguration)
            path = database.path
            try prepareStorage()
        }
    }

    private static func deleteFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }



    /// The schemas of the classes registered so far.
    public var schema: [ObjectSchema] { schemas.values.sorted { $0.className < $1.className } }

    deinit {
        // A write transaction left open is rolled back, and the writer given back.
        if let writer = borrowedWriter {
            _ = try? writer.execute("ROLLBACK TRANSACTION")
            database.returnWriter(writer)
        }
    }
}
