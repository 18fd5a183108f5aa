import Foundation
import RealmFileReader

/// How many objects an import has written, for a progress bar.
public struct RealmImportProgress: Sendable, Equatable {
    /// Top-level objects read (and written, unless it is a dry run) so far.
    public let objectsDone: Int
    /// Top-level objects in the file.
    public let objectsTotal: Int
    /// The class being imported.
    public let className: String

    /// The fraction done, 0…1.
    public var fractionCompleted: Double { objectsTotal == 0 ? 1 : Double(objectsDone) / Double(objectsTotal) }
}

/// What an import read and wrote.
public struct RealmImportSummary: Sendable, Equatable {
    /// One class of the file and its number of top-level objects (embedded classes: 0,
    /// their objects travel inside their owners).
    public struct ClassCount: Sendable, Equatable {
        /// The class name.
        public let className: String
        /// Whether its objects are embedded in others.
        public let isEmbedded: Bool
        /// Its top-level objects.
        public let objects: Int
    }

    /// The file format of the Realm file (22, 23 or 24).
    public let fileFormatVersion: Int
    /// The schema version the file records (0 when it records none), which the vault now has.
    public let schemaVersion: UInt64
    /// Every class of the file, by name.
    public let classes: [ClassCount]
    /// Classes of the file the app's models do not declare, imported as runtime classes
    /// (readable through the dynamic API); empty in schema-less imports.
    public let runtimeClasses: [String]
    /// Whether the file was encrypted.
    public let wasEncrypted: Bool
    /// The size of the Realm file in bytes.
    public let fileSize: Int
    /// Whether anything was written (false for a dry run).
    public let wroteVault: Bool

    /// Top-level objects in all classes.
    public var objectCount: Int { classes.reduce(0) { $0 + $1.objects } }
}

/// Why an import failed. Nothing was written in any case: the destination vault
/// does not exist afterwards. Messages name files, classes and properties, never
/// values or keys.
public enum RealmImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Realm file cannot be read: not a Realm file, truncated, corrupt (counts larger
    /// than the bytes that hold them included), an unknown file format version, a wrong or
    /// missing key, an unsupported column type, or a value Realm cannot have written (a
    /// string that is not UTF-8, a date or decimal that does not decode), named by class,
    /// object and property.
    case realmFile(RealmFileError)
    /// The file's schema does not match the app's models (with `objectTypes` set).
    case schemaMismatch(className: String, property: String, reason: String)
    /// A value the file holds cannot be stored in a vault.
    case unsupportedValue(className: String, property: String, reason: String)
    /// The file holds what a Realm file cannot: two objects with one primary key, a null in a
    /// required property, a set holding one element twice, an embedded object with two owners
    /// or none, a link to an object the file does not hold, a schema Realm does not write
    /// (an embedded class with a primary key, a link to a table that is not a class).
    ///
    /// `object` names the object (`"the object with key 9"`, by its key in the file) or
    /// `"the schema"`; no case ever shows a stored value.
    case invalidObject(className: String, object: String, property: String, reason: String)
    /// A vault or file already exists at the destination; it is never replaced.
    case destinationExists(path: String)
    /// The destination cannot be created (a missing key, an unwritable directory,
    /// an in-memory configuration, a full disk).
    case destination(String)

    /// A sentence saying what failed and what to do.
    public var description: String {
        switch self {
        case .realmFile(let error):
            return "cannot import the Realm file: \(error.description)"
        case .schemaMismatch(let className, let property, let reason):
            return "the Realm file does not match the app's models at \(className).\(property): \(reason). "
                + "Import without objectTypes (the file's own schema) and open the vault with your models and a migration block."
        case .unsupportedValue(let className, let property, let reason):
            return "cannot import \(className).\(property): \(reason)"
        case .invalidObject(let className, let object, let property, let reason):
            return "cannot import \(className).\(property) (\(object)): \(reason); the Realm file is damaged, nothing was written"
        case .destinationExists(let path):
            return "cannot import into \(path): a file already exists there (nothing was written; delete or move it first)"
        case .destination(let detail):
            return "cannot create the vault: \(detail)"
        }
    }
}

extension RealmImportError {
    /// What the file holds in `property` of the object with key `key` of `className` cannot be right.
    static func invalid(_ className: String, key: Int64, _ property: String, _ reason: String) -> RealmImportError {
        .invalidObject(className: className, object: "the object with key \(key)", property: property, reason: reason)
    }

    /// The file's schema for `className.property` is not one Realm writes.
    static func invalidSchema(_ className: String, _ property: String, _ reason: String) -> RealmImportError {
        .invalidObject(className: className, object: "the schema", property: property, reason: reason)
    }
}
