import Foundation
import VaultCore

// Addressing objects by their row id, for tools that show a vault's objects to
// a person (the studio): a row id names an object for as long as it exists,
// whatever is inserted or deleted around it, where a position in its class
// moves with every delete before it.

extension ObjectBase {
    /// The row id of a managed object (`nil` for an unmanaged one): stable for the
    /// object's life, never reused for another object of its class while it exists.
    @_spi(Interchange)
    public var storedRowID: Int64? {
        if let dynamic = self as? DynamicObject, dynamic.isMigrationObject { return dynamic.rowID }
        return manager?.rowID
    }
}

extension Vault {
    /// The object of class `className` stored at `rowID`, as a ``DynamicObject``;
    /// `nil` when the class has no such object (or the class is unknown).
    @_spi(Interchange)
    public func dynamicObject(ofType className: String, rowID: Int64) -> DynamicObject? {
        guard storedSchema[className] != nil else { return nil }
        return dynamicObject(className: className, rowID: rowID)
    }
}

extension Results {
    /// The objects whose property `propertyName` links to `object`: a to-one link
    /// to it, or a list or set that holds it. The property is named exactly (a
    /// name holding dots or operators is one name), never parsed as query text.
    /// - Throws: ``QueryError`` when the class has no such link property.
    @_spi(Interchange)
    public func filter(linkingTo object: ObjectBase, through propertyName: String) throws(QueryError) -> Results<Element> {
        let isToMany = schema[propertyName].map { $0.collectionKind != nil } ?? false
        let path = QueryKeyPath(variable: nil, steps: [.property(propertyName)], offset: nil)
        let comparison = Comparison(lhs: .keyPath(path), op: .equal, rhs: .value(.object(.init(object: object)), offset: nil),
                                    quantifier: isToMany ? .any : nil)
        return try filter(predicate: .comparison(comparison))
    }
}
