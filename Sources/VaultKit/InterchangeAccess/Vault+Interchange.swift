import Foundation
import VaultCore

extension Vault {
    /// Creates the vault `configuration` names, with `schemas` and `schemaVersion`,
    /// filled by `populate` — complete or not at all.
    ///
    /// The file is built under a hidden temporary name and published only once
    /// `populate` returned and every link was checked (see
    /// `VaultDatabase.createPopulated(configuration:_:)`): if anything throws, or the
    /// process dies, no vault appears at the path. Model classes are recorded so
    /// that `Vault(configuration:)` finds them; runtime classes are read back
    /// through the dynamic API.
    ///
    /// - Throws: `VaultError.inUse` when a file exists at the path (it is never
    ///   replaced); ``InterchangeError`` from `populate`'s writes, or for a link to
    ///   an object that was not written; whatever `populate` throws.
    @_spi(Interchange)
    public static func createPopulated(configuration: Configuration, schemas: [ObjectSchema], schemaVersion: UInt64,
                                       _ populate: (InterchangeWriter) throws -> Void) throws {
        try ObjectSchema.checkNames(of: schemas)
        var storage = try configuration.databaseConfiguration()
        // One big transaction: fsyncs at its end, not per page of the write-ahead log.
        storage.synchronous = .normal
        // The indexes built after the rows sort every row: in sealed temporary files,
        // so that a collection of millions of elements does not sort in memory.
        storage.temporaryStorage = .sealedFiles
        try VaultDatabase.createPopulated(configuration: storage) { database in
            try database.writeWithoutTransaction { db in
                try db.execute("PRAGMA foreign_keys = OFF")
                defer { _ = try? db.execute("PRAGMA foreign_keys = ON") }
                try db.transaction(.immediate) { db in
                    try db.execute(SystemTables.createSQL)
                    try db.execute(ExactTimestamps.createSQL)
                    // Indexes and triggers after the rows: one sorted build each instead of a B-tree insert per row.
                    let deferred = try createTables(schemas, on: db)
                    try db.execute(SystemTables.storeSchemaVersionSQL, arguments: [.integer(Int64(bitPattern: schemaVersion))])
                    let writer = try InterchangeWriter(database: db, schemas: schemas)
                    writer.commitEvery = (rows: 100_000, bytes: 32 << 20)
                    try populate(writer)
                    for statement in deferred { try db.execute(statement) }
                    if let first = try db.fetchAll("PRAGMA foreign_key_check").first {
                        let table = first[0].string ?? "?"
                        throw InterchangeError(className: table, property: "(links)",
                                               reason: "a link or collection entry points at an object that was not written")
                    }
                }
            }
        }
    }

    /// Creates the tables and records the schema; returns the index and trigger statements, to run once the rows are in.
    private static func createTables(_ schemas: [ObjectSchema], on db: Database) throws -> [String] {
        var deferred: [String] = []
        for schema in schemas {
            for statement in schema.creationSQL() {
                // A list's order index grows at its end as rows arrive in order: built with them, its
                // pages are committed with the rows (a build after the rows would hold them all at once).
                if statement.hasPrefix("CREATE TABLE") || statement.contains("_order\" ON") {
                    try db.execute(statement)
                } else {
                    deferred.append(statement)
                }
            }
            try db.execute(SystemTables.replaceDefinitionSQL, arguments: [.text(schema.className), .text(schema.storedDefinition)])
            if schema.isModelClass {
                try db.execute(SystemTables.storeSwiftTypeSQL, arguments: [.text(schema.className), .text(SchemaChange.recordedTypeName(schema.type))])
            }
            try db.execute(SystemTables.storeEmbeddedFlagSQL, arguments: [.text(schema.className), .integer(schema.isEmbedded ? 1 : 0)])
            let order = schema.properties.filter { $0.originProperty == nil }.map(\.storedName).joined(separator: "\n")
            try db.execute(SystemTables.storePropertyOrderSQL, arguments: [.text(schema.className), .text(order)])
        }
        return deferred
    }
}
