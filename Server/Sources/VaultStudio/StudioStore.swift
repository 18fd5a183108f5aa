import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

/// Errors shown as 404, 400, 403, 409 or 413.
enum StudioError: Error, CustomStringConvertible {
    /// An unknown class or object.
    case notFound(String)
    /// A value that does not parse, a property that cannot be edited.
    case badRequest(String)
    /// A write to a read-only studio.
    case forbidden(String)
    /// An edit made against a value that has changed since its page was loaded.
    case conflict(String)
    /// A form larger than ``StudioServer/maximumBodySize``.
    case payloadTooLarge

    var description: String {
        switch self {
        case .notFound(let text), .badRequest(let text), .forbidden(let text), .conflict(let text): text
        case .payloadTooLarge: "the form is larger than \(StudioServer.maximumBodySize) bytes"
        }
    }
}

/// The vault, confined to this actor: every read and write of it happens in
/// its methods, which return rendered pages (Sendable strings).
///
/// An object is addressed by its primary key's text, or, in a class without a
/// primary key (or for an object whose key is `nil`), by `@` and its row id,
/// which never changes while the object exists: a page opened before another
/// object was deleted still names the same object.
public actor StudioStore {
    /// Objects on one class page.
    static let pageSize = 50
    /// Items of a collection shown beside its count.
    static let previewCount = 3

    private let configuration: Vault.Configuration
    /// Whether the pages offer forms and the POST routes write.
    public nonisolated let allowsWrites: Bool
    private var openedVault: Vault?

    /// A store for the vault at `fileURL`; nothing is opened until ``open()``.
    /// `readOnly`, or a file this process cannot write, opens it read-only.
    public init(fileURL: URL, key: MasterKey, readOnly: Bool) throws {
        let writable = FileManager.default.isWritableFile(atPath: fileURL.path)
            && FileManager.default.isWritableFile(atPath: fileURL.deletingLastPathComponent().path)
        let readOnly = readOnly || !writable
        var configuration = Vault.Configuration(fileURL: fileURL, readOnly: readOnly)
        configuration.masterKey = key
        configuration.schemaVersion = try schemaVersionAtURL(fileURL, encryptionKey: configuration.encryptionKey)
        self.configuration = configuration
        self.allowsWrites = !readOnly
    }

    /// Opens the vault (confined to this actor), so that a wrong key or a damaged file shows before the server starts.
    public func open() throws {
        _ = try vault()
    }

    func vault() throws -> Vault {
        if let openedVault { return openedVault }
        let vault = try Vault(configuration: configuration, isolation: self)
        openedVault = vault
        return vault
    }

    // MARK: Writes

    /// POST `…/object/NAME/KEY/set`: writes one scalar property. `expected` is the
    /// value's text when the form was made: if the object now holds another value,
    /// nothing is written (409); if `text` is that same text, nothing needs writing.
    func setValue(className: String, key: String, property name: String, text: String, expected: String?, version: String?) throws {
        guard allowsWrites else { throw StudioError.forbidden("the studio is read-only") }
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        try Self.check(version, of: object, schema: schema, className: className)
        guard let property = schema[name] else { throw StudioError.badRequest("\(className) has no property '\(name)'") }
        guard StudioValueCodec.isEditable(property) else { throw StudioError.badRequest("\(className).\(name) cannot be edited here") }
        let current = StudioValueCodec.editText(object[property.name], for: property)
        if let expected {
            guard current == expected else {
                throw StudioError.conflict("\(className).\(name) of this object was changed after the page was loaded: nothing was written. Reload the page to see its value.")
            }
            if text == expected { return }
        }
        let parsed = try StudioValueCodec.parse(text, for: property, className: className)
        try vault.write { object[property.name] = parsed }
    }

    /// POST `…/object/NAME/KEY/delete`. `version` (from the page's form) must still be the object's.
    func deleteObject(className: String, key: String, version: String?) throws {
        guard allowsWrites else { throw StudioError.forbidden("the studio is read-only") }
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        try Self.check(version, of: object, schema: schema, className: className)
        try vault.write { vault.delete(object) }
    }

    /// The object's values as a page shows them, hashed: within one run of the studio the
    /// same values give the same text. A form carries it, so that an edit or a delete made
    /// on a page of an object that has changed since, or of one whose row id another object
    /// has taken after it was deleted, is refused instead of landing on what is there now.
    static func version(of object: DynamicObject, schema: ObjectSchema) -> String {
        var hasher = Hasher()
        hasher.combine(object.storedRowID)
        for property in schema.properties where property.originProperty == nil {
            hasher.combine(property.name)
            let value = StudioValueCodec.unwrap(object[property.name])
            if let linked = value as? ObjectBase {
                hasher.combine(linked.storedRowID)
            } else if let collection = value as? StudioCollection {
                hasher.combine(String(describing: collection.studioContents))
            } else {
                hasher.combine(StudioValueCodec.editText(value, for: property) ?? String(describing: value))
            }
        }
        return String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 16)
    }

    private static func check(_ version: String?, of object: DynamicObject, schema: ObjectSchema, className: String) throws {
        guard let version, version != Self.version(of: object, schema: schema) else { return }
        throw StudioError.conflict("This \(className) object was changed (or deleted and its address reused) after the page was loaded: nothing was written. Reload the page.")
    }

    // MARK: Addresses

    func topLevelSchema(_ className: String, in vault: Vault) throws -> ObjectSchema {
        guard let schema = vault.storedSchema[className], !schema.isEmbedded else {
            throw StudioError.notFound("There is no class named \(className) in this vault.")
        }
        return schema
    }

    /// The object `key` names: its primary key's text, or `@ROWID`.
    func resolve(className: String, key: String, schema: ObjectSchema, vault: Vault) throws -> DynamicObject {
        let notFound = StudioError.notFound("There is no \(className) object with key \(key).")
        if let pk = schema.primaryKeyProperty, let value = StudioValueCodec.parseScalar(key, as: pk.type),
           let object = vault.dynamicObject(ofType: className, forPrimaryKey: value) {
            return object
        }
        // A row id: every object of a class without a primary key, and one whose key is nil.
        guard key.hasPrefix("@"), let rowID = Int64(key.dropFirst()), rowID > 0,
              let object = vault.dynamicObject(ofType: className, rowID: rowID) else { throw notFound }
        if let pk = schema.primaryKeyProperty, StudioValueCodec.unwrap(object[pk.name]) != nil { throw notFound }
        return object
    }

    /// The key of an object of a top-level class, as its address spells it.
    static func key(of object: ObjectBase, schema: ObjectSchema) -> String {
        if let pk = schema.primaryKeyProperty, let value = StudioValueCodec.unwrap(object[pk.name]) {
            return StudioValueCodec.scalarText(value)
        }
        return "@\(object.storedRowID ?? 0)"
    }

    /// The class name and key of a linked object, for a link to its page (`nil`: embedded or unknown).
    func address(of object: ObjectBase, vault: Vault) -> (className: String, key: String)? {
        let className = object.objectSchema.className
        guard let schema = vault.storedSchema[className], !schema.isEmbedded else { return nil }
        return (className, Self.key(of: object, schema: schema))
    }
}
