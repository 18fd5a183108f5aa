import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

// MARK: - Lists and maps of embedded objects
//
// An embedded object in a list or a map has no key of its own: its place in
// the collection is its identity. Each one travels as one element value, a
// *snapshot* of its properties (`.data`, written with the change-set codec as
// one `set` per property, sorted by name, so equal objects have equal bytes).
// The element merges as any list element or map value does: an insert, a
// removal, or a replacement — changing one property of the third address is a
// `listSet` of that element with its new snapshot, so a concurrent change of
// another element survives, and of two concurrent changes of the same element
// the later one wins (whole, not property by property, unlike a to-one
// embedded object). A link inside a snapshot to a deleted object reads as nil.
//
// Element classes hold values and links to top-level objects; an element class
// with collections or embedded objects of its own is refused for now.

/// Snapshots of the objects of a list or map of embedded objects.
struct EmbeddedElementCoding {
    let className: String
    let properties: [Property]

    init(_ schema: ObjectSchema, owner: String) throws(SyncError) {
        let properties = schema.properties.filter { $0.originProperty == nil }
        for property in properties where property.collectionKind != nil || property.isEmbeddedLink || property.type == .mixed {
            throw .unsupportedModel("\(owner) holds \(schema.className) objects in a list or map, and \(schema.className).\(property.name) is a collection, an embedded object or a mixed value, which such elements cannot sync yet")
        }
        className = schema.className
        self.properties = properties.sorted { $0.name < $1.name }
    }

    /// The snapshot of the embedded object at `rowID`; `link` turns a stored link into its sync form.
    func snapshot(_ vault: Vault, rowID: Int64, link: (Property, DatabaseValue) throws -> SyncValue) throws -> SyncValue {
        guard let row = try vault.storedRow(className: className, rowID: rowID) else { return .null }
        var values: [(String, SyncValue)] = []
        for property in properties {
            guard case .column(let stored)? = row[property.name] else { continue }
            if property.objectClassName != nil {
                values.append((property.name, try link(property, stored)))
            } else if let value = SyncedClass.syncValue(stored, type: property.type) {
                values.append((property.name, value))
            }
        }
        return try Self.encode(values)
    }

    /// The snapshot's property values by name.
    func values(of snapshot: SyncValue) throws(SyncError) -> [String: SyncValue] {
        guard case .data(let bytes) = snapshot else { throw .schemaMismatch("an element of a list or map of \(className) is not an embedded object") }
        return Dictionary(try NamedValuesCoding.decode(bytes), uniquingKeysWith: { $1 })
    }

    /// The snapshot with every link that `isLive` refuses read as nil (what a device shows).
    func visible(_ snapshot: SyncValue, isLive: (SyncObjectReference) -> Bool) throws -> SyncValue {
        let values = try values(of: snapshot)
        let shown = values.map { name, value -> (String, SyncValue) in
            if case .link(let reference) = value, !isLive(reference) { return (name, .null) }
            return (name, value)
        }
        return try Self.encode(shown.sorted { $0.0 < $1.0 })
    }

    /// Sets the embedded object at `rowID` to the snapshot's values (`stored` gives a value's stored form).
    func write(_ snapshot: SyncValue, to vault: Vault, rowID: Int64, stored: (SyncValue, Property) throws -> DatabaseValue) throws {
        let values = try values(of: snapshot)
        let row = try vault.storedRow(className: className, rowID: rowID)
        for property in properties {
            guard let value = values[property.name] else { continue }
            let desired = try stored(value, property)
            if row?[property.name] != .column(desired) {
                try vault.storedSet(className: className, rowID: rowID, property: property.name, value: desired)
            }
        }
    }

    /// A readable form for dumps.
    func render(_ snapshot: SyncValue) -> String {
        guard let values = try? values(of: snapshot) else { return "?" }
        return "{" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.canonicalText)" }.joined(separator: ", ") + "}"
    }

    private static func encode(_ values: [(String, SyncValue)]) throws(SyncError) -> SyncValue {
        .data(try NamedValuesCoding.encode(values))
    }
}
