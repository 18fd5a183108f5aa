import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - Importing the canonical JSON encoding
//
// `vault import` reads what `vault export --format json` writes (the encoding is
// described in CanonicalJSONExport) into a new vault, in three streaming passes
// over the file, each holding one object at a time:
//
//   1. the schema: every class's declaration, and its number of objects
//      (checked whole before any object is read: see DocumentSchema);
//   2. when a class has a primary key: every object's key, so that a missing,
//      null or repeated key is refused before anything is written and a link
//      written by key (a mixed one too) finds its object's row id or is refused
//      (the one table that grows with the document — one key per keyed object);
//   3. the objects, written by VaultKit's interchange writer into a vault built
//      under a hidden name and published only when complete.
//
// Row ids follow the document: an object of a class whose primary key is a
// required integer gets that key as row id, any other the position of the
// object in its class plus one — the same numbering a link `{"class", "index"}`
// uses — so links are written before their targets exist and checked at the
// end. Exporting the imported vault gives back the document byte for byte
// (linking-objects properties excepted: a vault without models has none).

/// Imports a document in the canonical JSON encoding into a new vault.
public enum CanonicalJSONImport {
    /// Imports the document at `url` into a new vault at `configuration`'s file.
    /// - Parameters:
    ///   - url: The JSON document (as `vault export --format json` writes it).
    ///   - configuration: The vault to create (its file must not exist) and its key.
    ///   - progress: Called with (objects written, objects in the document) every 1,000 objects and at the end.
    /// - Throws: ``JSONImportError``; nothing is written when it throws.
    @discardableResult
    public static func importDocument(at url: URL, into configuration: Vault.Configuration,
                                      progress: ((Int, Int) -> Void)? = nil) throws(JSONImportError) -> JSONImportSummary {
        guard configuration.inMemoryIdentifier == nil, let destination = configuration.fileURL else {
            throw .io("the import writes a vault file: give the configuration a fileURL")
        }
        if FileManager.default.fileExists(atPath: destination.path) { throw .destinationExists(path: destination.path) }
        do {
            let document = try DocumentSchema.read(url)
            let keys = try document.hasPrimaryKeys ? KeyTables.read(url, schema: document) : KeyTables()
            let decoder = JSONValueDecoding(schema: document, keys: keys)
            try Vault.createPopulated(configuration: configuration, schemas: document.schemas, schemaVersion: document.schemaVersion) { writer in
                var done = 0
                try document.forEachObjectReader(in: url) { schema, position, reader in
                    let rowID: Int64, name: String
                    if let key = schema.primaryKeyProperty, JSONValueDecoding.isRowIDKey(key) {
                        guard let keyed = keys.rowID(of: schema.className, position: position) else {
                            throw JSONImportError.malformed("the class \(schema.className) changed while the file was read")
                        }
                        (rowID, name) = (keyed, "with primary key \(keyed)")
                    } else {
                        (rowID, name) = (Int64(position) + 1, "at position \(position)")
                    }
                    let values = try decoder.streamObject(reader, of: schema, name: name, owner: rowID, writer: writer)
                    do {
                        try writer.insert(className: schema.className, rowID: rowID, values: values)
                    } catch {
                        throw objectError(error, className: schema.className, position: position)
                    }
                    done += 1
                    if done % 1_000 == 0 { progress?(done, document.objectCount) }
                }
                progress?(done, document.objectCount)
            }
            return JSONImportSummary(schemaVersion: document.schemaVersion,
                                     classes: document.schemas.map { .init(className: $0.className, objects: document.counts[$0.className] ?? 0) })
        } catch {
            throw importError(error, destination: destination.path)
        }
    }

    /// An error writing one object, named by its class and position.
    static func objectError(_ error: any Error, className: String, position: Int) -> any Error {
        let object = "at position \(position)"
        switch error {
        case let error as InterchangeError:
            return JSONImportError.invalidValue(className: error.className, object: error.className == className ? object : "inside \(className) \(object)",
                                                property: error.property, reason: error.reason)
        case VaultError.sqlite(let failure) where failure.code == .constraint:
            return JSONImportError.invalidValue(className: className, object: object, property: "(object)",
                                                reason: "a value repeats where values are unique (a set's elements, or a primary key)")
        default:
            return error
        }
    }

    private static func importError(_ error: any Error, destination: String) -> JSONImportError {
        switch error {
        case let error as JSONImportError: return error
        case let error as JSONSyntaxError: return .malformed(error.description)
        case let error as JSONValueDecoding.Failure: return .invalidValue(className: "(document)", object: "(one of its objects)", property: "(a value)", reason: error.reason)
        case let error as InterchangeError:
            return .invalidValue(className: error.className, object: "(one of its objects)", property: error.property, reason: error.reason)
        case let error as VaultError:
            if case .inUse = error { return .destinationExists(path: destination) }
            return .io(error.description)
        default: return .io("\(error)")
        }
    }
}
