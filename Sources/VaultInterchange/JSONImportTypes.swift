import Foundation

/// What a JSON import wrote.
public struct JSONImportSummary: Sendable, Equatable {
    /// One class of the document and its number of top-level objects.
    public struct ClassCount: Sendable, Equatable {
        /// The class name.
        public let className: String
        /// Its top-level objects (embedded classes: 0; their objects are inline).
        public let objects: Int
    }

    /// The document's schema version, which the new vault has.
    public let schemaVersion: UInt64
    /// Every class of the document, in its order (alphabetical in a canonical document).
    public let classes: [ClassCount]

    /// Top-level objects in all classes.
    public var objectCount: Int { classes.reduce(0) { $0 + $1.objects } }
}

/// Why a JSON import failed; nothing was written. Messages name the class, the object
/// (by its primary key, or its position) and the property — never a value.
public enum JSONImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not JSON, or not the canonical encoding (the byte offset and what was expected).
    case malformed(String)
    /// A class or property declaration of the document is not one a vault can hold.
    case invalidSchema(className: String, property: String, reason: String)
    /// A value does not fit its property.
    case invalidValue(className: String, object: String, property: String, reason: String)
    /// A file already exists at the destination (the import creates a new vault; it never replaces a file).
    case destinationExists(path: String)
    /// The destination cannot be created, or the document cannot be read.
    case io(String)

    /// A sentence saying what failed and where.
    public var description: String {
        switch self {
        case .malformed(let detail):
            return "cannot import the document: \(detail)"
        case .invalidSchema(let className, let property, let reason):
            return "cannot import the document's schema at \(className).\(property): \(reason)"
        case .invalidValue(let className, let object, let property, let reason):
            return "cannot import \(className) \(object), property \(property): \(reason)"
        case .destinationExists(let path):
            return "cannot import into \(path): a file already exists there (nothing was written; the import creates a new vault)"
        case .io(let detail):
            return "cannot import the document: \(detail)"
        }
    }
}
