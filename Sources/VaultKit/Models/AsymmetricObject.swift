import Foundation
import VaultCore

/// A write-only record (Realm's `AsymmetricObject`): created with
/// ``Vault/create(_:value:)``, never queried, read back or deleted
/// through the object API, and linking only to embedded objects.
///
/// In Realm, asymmetric objects stream to a server and leave the device. A
/// vault has no sync, so they stay in it — encrypted like everything else —
/// as an append-only log: telemetry, audit entries, measurements that the app
/// writes but never shows. Read them for export or support with the
/// dynamic API (``Vault/dynamicObjects(_:)``), or delete them all with
/// ``Vault/deleteAll()``. `objects(_:)`, `object(ofType:forPrimaryKey:)`,
/// `add(_:)` and links from other objects do not accept them (they do not compile).
///
/// ```swift
/// final class Reading: AsymmetricObject {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var celsius = 0.0
///     @Persisted var place: Coordinates?          // an EmbeddedObject
/// }
/// try vault.write { vault.create(Reading.self, value: ["celsius": 21.5]) }
/// ```
open class AsymmetricObject: ObjectBase {
    public required init() { super.init() }
}

extension Vault {
    /// Writes a new asymmetric object from a dictionary of property values
    /// (public names) or another object (inside a write). It is not returned:
    /// asymmetric objects are written, never read through the object API.
    public func create<T: AsymmetricObject>(_ type: T.Type, value: Any = [String: Any]()) {
        let object = T()
        object.assignValues(from: value)
        guard requireWrite("create(_:value:)") else { return }
        do {
            let schema = try registeredSchema(for: T.self)
            _ = try insertAsymmetric(object, schema: schema)
        } catch {
            deferError(error)
        }
    }
}
