import Foundation
import RealmFileReader
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - Importing a .realm file
//
// A Realm app that moves to VaultKit brings its users' data with one call on
// first launch:
//
//     let summary = try Vault.importRealm(at: realmURL, encryptionKey: realmKey, into: configuration)
//
// The file is read by RealmFileReader (pure Swift, any platform, encrypted
// files included; never written) and its objects are written into a new vault
// by VaultKit's interchange writer, class by class, one object at a time.
//
// The schema. Without `objectTypes` in the configuration the vault takes the
// file's schema as it is: every class, with its persisted property names,
// types, optionality, primary key, indexes, embedded classes and the schema
// version; the app reads it through the dynamic API, or opens it with its
// models — and a migration block when they have moved on from the file's
// schema version, which then runs from that version as it would have in
// Realm. With `objectTypes`, the file's classes are matched to those models by
// class name and persisted property name (so `propertiesMapping` and
// `@Persisted(originProperty:)` models work unchanged) and every difference is
// an error naming the class and property before anything is written; classes
// the models do not declare arrive as runtime classes.
//
// Identity. Links are row ids in a vault and object keys in a Realm file. Each
// imported object's row id is derived from its key (key + 1), or is its
// primary key where the vault stores a required integer primary key as the row
// id; links are translated the same way (see RowIDPlan), so no object has to
// exist before a link to it is written. Embedded objects are written with
// their owner. Backlinks are not stored in either format: they are queries,
// and work on the imported objects as on any others.
//
// Exactness. Every value arrives as the file holds it: 64-bit integers,
// NaN and infinities, strings of any length, dates to the nanosecond (see
// VaultKit's ExactTimestamp), decimals with Realm's exponent ("1.50"), mixed
// values with nested lists and dictionaries. `vault export --format json`
// of the imported vault prints the file's contents in the encoding of
// shared/fixtures/realm/README.md, which is how the tests compare them.
//
// Refusals. What a file written by Realm cannot hold is refused, never imported
// as something else: structure that does not decode, refs outside the file,
// counts larger than the bytes (or Realm's node sizes) that hold them, values
// out of their type's range, strings that are not UTF-8 (RealmFileReader);
// a repeated or null required primary key, a null in a required property, a
// repeated set element or dictionary key, an embedded object with two owners or
// none, a link to an object the file does not hold, a schema Realm does not
// write (ImportChecks). The dry run runs every one of these checks; each error
// names the class, the object (by its key in the file) and the property, and
// `vault import-realm` exits with 65. What cannot be found is a change that
// yields other well-formed data — which an encrypted Realm file does not
// exclude (see RealmFileReader's essay, section 13, and SECURITY.md).
//
// Atomicity. The vault is built under a hidden temporary name beside the
// destination and published with link() only when every object is written and
// every link checked: whatever fails, and however the process dies, the
// destination either does not exist or is complete. An existing file is never
// replaced. Memory holds one object at a time, the reader's page cache, the
// vault's page cache and, for classes with integer primary keys that links
// reach, two integers per object.

extension Vault {
    /// Imports a Realm file into a new vault at `configuration`'s file.
    ///
    /// - Parameters:
    ///   - realmURL: The `.realm` file (file formats 22–24: RealmSwift 10.8 and later; older files
    ///     must be opened once by a newer Realm, which upgrades them).
    ///   - encryptionKey: Realm's 64-byte key for an encrypted file; nil for a plain one.
    ///   - configuration: The vault to create (its file must not exist) and its key. With
    ///     `objectTypes` set, the file must match those models; without, the vault takes the file's schema.
    ///   - progress: Called as objects are written (every 1,000 objects and at the end).
    /// - Returns: What was imported.
    /// - Throws: ``RealmImportError``; nothing is written when it throws.
    @discardableResult
    public static func importRealm(at realmURL: URL, encryptionKey: Data? = nil, into configuration: Configuration,
                                   progress: ((RealmImportProgress) -> Void)? = nil) throws(RealmImportError) -> RealmImportSummary {
        guard configuration.inMemoryIdentifier == nil, let destination = configuration.fileURL else {
            throw .destination("an import writes a vault file: give the configuration a fileURL, not an inMemoryIdentifier")
        }
        if FileManager.default.fileExists(atPath: destination.path) { throw .destinationExists(path: destination.path) }
        let importer = try RealmImporter(url: realmURL, encryptionKey: encryptionKey, models: configuration.objectTypes)
        try importer.verifyPages()
        do {
            try Vault.createPopulated(configuration: configuration, schemas: importer.schemas, schemaVersion: importer.schemaVersion) { writer in
                try importer.run(writer: writer, progress: progress)
            }
        } catch {
            throw RealmImporter.importError(error, destination: destination.path)
        }
        return importer.summary(wroteVault: true)
    }

    /// Reads every object of a Realm file as an import would — checking the schema
    /// against `objectTypes` when given, decoding and converting every value — and
    /// writes nothing (`vault import-realm --dry-run`).
    /// - Parameters:
    ///   - realmURL: The `.realm` file.
    ///   - encryptionKey: Realm's 64-byte key for an encrypted file; nil for a plain one.
    ///   - objectTypes: The app's models to check the file against; nil for the file's own schema.
    ///   - progress: Called as objects are read (every 1,000 objects and at the end).
    /// - Returns: What an import would bring (``RealmImportSummary/wroteVault`` is false).
    /// - Throws: ``RealmImportError``, as ``importRealm(at:encryptionKey:into:progress:)`` would.
    @discardableResult
    public static func inspectRealm(at realmURL: URL, encryptionKey: Data? = nil, objectTypes: [ObjectBase.Type]? = nil,
                                    progress: ((RealmImportProgress) -> Void)? = nil) throws(RealmImportError) -> RealmImportSummary {
        let importer = try RealmImporter(url: realmURL, encryptionKey: encryptionKey, models: objectTypes)
        try importer.verifyPages()
        do {
            try importer.run(writer: nil, progress: progress)
        } catch {
            throw RealmImporter.importError(error, destination: "")
        }
        return importer.summary(wroteVault: false)
    }
}

/// One import: the open file, its mappings, and the pass over its objects.
final class RealmImporter {
    let file: RealmFile
    let schemas: [ObjectSchema]
    let schemaVersion: UInt64
    private let mappings: [ClassMapping]
    private let runtimeClasses: [String]
    private let fileSize: Int
    private let encrypted: Bool
    private var counts: [String: Int] = [:]

    init(url: URL, encryptionKey: Data?, models: [ObjectBase.Type]?) throws(RealmImportError) {
        do {
            file = try RealmFile(url: url, encryptionKey: encryptionKey.map { [UInt8]($0) })
        } catch {
            throw .realmFile(error)
        }
        encrypted = encryptionKey != nil
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
        schemaVersion = file.schemaVersion ?? 0
        if let models {
            let modelSchemas: [ObjectSchema]
            do {
                modelSchemas = try ObjectSchema.modelSchemas(for: models)
            } catch {
                throw .schemaMismatch(className: "(models)", property: "(schema)", reason: "\(error)")
            }
            (mappings, schemas, runtimeClasses) = try SchemaMapping.modelMappings(for: file.classes, models: modelSchemas)
        } else {
            mappings = SchemaMapping.runtimeMappings(for: file.classes)
            schemas = mappings.map(\.target)
            runtimeClasses = []
        }
        // The dry run refuses what the import would: names a vault cannot store (a control
        // character, a reserved prefix, a length, two names differing by case alone), then a
        // schema Realm does not write (see ImportChecks).
        do {
            try ObjectSchema.checkNames(of: schemas)
        } catch {
            throw .unsupportedValue(className: error.className, property: error.property, reason: error.reason)
        }
        try SchemaChecks.check(file.classes)
    }

    /// Authenticates every written page of an encrypted file before anything is read for the
    /// import, so that damage anywhere — also in pages no object reaches — stops it.
    func verifyPages() throws(RealmImportError) {
        do {
            try file.verifyEncryptedPages()
        } catch {
            throw .realmFile(error)
        }
    }

    /// Reads every top-level object, checks it (`ObjectChecks`, the same for a dry run and an
    /// import) and, with a writer, writes it.
    func run(writer: InterchangeWriter?, progress: ((RealmImportProgress) -> Void)?) throws {
        let topLevel = mappings.filter { !$0.file.isEmbedded }
        var total = 0
        for mapping in topLevel {
            let count = try file.objectCount(ofClass: mapping.file.name)
            counts[mapping.file.name] = count
            total += count
        }
        let conversion = ValueConversion(mappings: Dictionary(mappings.map { ($0.file.name, $0) }, uniquingKeysWith: { first, _ in first }),
                                         rowIDs: try RowIDPlan(mappings: mappings, file: file))
        var done = 0
        let file = self.file
        let produce: @Sendable (_ emit: (PreparedObject) throws -> Void) throws -> Void = { emit in
            // Checked here, on the reading side, before an object reaches the writer.
            let checks = ObjectChecks(file: file)
            for mapping in topLevel {
                let className = mapping.file.name
                try file.forEachObject(ofClass: className) { object in
                    try checks.check(object, of: mapping.file)
                    try emit(PreparedObject(className: mapping.target.className, fileClassName: className, objectKey: object.key,
                                            rowID: try conversion.rowIDs.rowID(of: object, className: className),
                                            values: try conversion.values(of: object, mapping: mapping)))
                }
            }
            try checks.finish()
        }
        func report(_ object: PreparedObject) {
            done += 1
            if done % 1_000 == 0 { progress?(RealmImportProgress(objectsDone: done, objectsTotal: total, className: object.fileClassName)) }
        }
        if let writer {
            try ImportPipeline.run(produce: produce) { batch in
                for object in batch {
                    do {
                        try writer.insert(className: object.className, rowID: object.rowID, values: object.values)
                    } catch {
                        throw Self.writeError(error, object: object)
                    }
                    report(object)
                }
            }
        } else {
            try produce { object in report(object) }
        }
        progress?(RealmImportProgress(objectsDone: done, objectsTotal: total, className: topLevel.last?.file.name ?? ""))
    }

    func summary(wroteVault: Bool) -> RealmImportSummary {
        RealmImportSummary(
            fileFormatVersion: file.fileFormatVersion, schemaVersion: schemaVersion,
            classes: file.classes.map { .init(className: $0.name, isEmbedded: $0.isEmbedded, objects: counts[$0.name] ?? 0) }
                .sorted { $0.className < $1.className },
            runtimeClasses: runtimeClasses.sorted(), wasEncrypted: encrypted, fileSize: fileSize, wroteVault: wroteVault)
    }

    /// The error of a write of `object` that the checks did not foresee, naming the object:
    /// the vault's own refusal of a value, or an SQLite constraint (never its text).
    static func writeError(_ error: any Error, object: PreparedObject) -> any Error {
        switch error {
        case let error as InterchangeError:
            // An embedded object's value names the embedded class; the object is then its owner's.
            guard error.className == object.className else {
                return RealmImportError.invalidObject(
                    className: error.className, object: "inside the \(object.fileClassName) object with key \(object.objectKey)",
                    property: error.property, reason: error.reason)
            }
            return RealmImportError.invalid(object.fileClassName, key: object.objectKey, error.property, error.reason)
        case let error as VaultError:
            guard case .sqlite(let sqlite) = error, sqlite.code == .constraint else { return error }
            return RealmImportError.invalid(object.fileClassName, key: object.objectKey, "(object)",
                                            "the vault refused it: a value that must be unique repeats, or a required one is missing")
        default:
            return error
        }
    }

    /// The typed error of whatever an import threw.
    static func importError(_ error: any Error, destination: String) -> RealmImportError {
        switch error {
        case let error as RealmImportError: return error
        case let error as RealmFileError: return .realmFile(error)
        case let error as InterchangeError:
            return .unsupportedValue(className: error.className, property: error.property, reason: error.reason)
        case let error as VaultError:
            if case .inUse = error { return .destinationExists(path: destination) }
            // A constraint no check foresaw (they all run before the write): named, without SQLite's text.
            if case .sqlite(let sqlite) = error, sqlite.code == .constraint {
                return .invalidObject(className: "(a class)", object: "(an object)", property: "(a unique or required value)",
                                      reason: "the vault refused a value that repeats one that must be unique, or a missing required one")
            }
            return .destination(error.description)
        default: return .destination("\(error)")
        }
    }
}
