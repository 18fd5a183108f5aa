import Foundation
import VaultCore

// MARK: - Key path names
//
// Realm's `_name(for:)` names a key path the way the query language spells
// it: `\Person.dog?.owner?.name` is "dog.owner.name", `\Person.dogs[0].name`
// is "dogs.name", `\Person.tags[""]??.name` (a map) is "tags.name". Swift key
// paths print no names, so the path is run on the class's schema prototype
// while its getters report which property they are (SchemaDiscovery): each
// getter of a link hands out the linked class's prototype, each collection of
// objects a collection holding one, and the next step reads that. The tags
// collected are resolved class by class along the links.

/// Prototype values that let a key path continue past a link or a collection.
protocol KeyPathTraversable {
    /// A value whose next key-path step reads a schema prototype; nil when there is none.
    static func keyPathPrototype() -> Self?
}

/// The schema prototype of the class a value of type `T` links to, as a `T`
/// (the object itself, or wrapped in an optional); nil when `T` links nowhere.
private func prototype<T: PersistableValue>(of type: T.Type) -> T? {
    guard let target = T._vaultLinkTarget, let schema = try? ObjectSchema.schema(for: target) else { return nil }
    return schema.prototype as? T
}

extension Optional: KeyPathTraversable where Wrapped: PersistableValue {
    static func keyPathPrototype() -> Wrapped?? {
        guard let linked = prototype(of: Wrapped.self) else { return nil }
        return .some(.some(linked))
    }
}

extension List: KeyPathTraversable {
    static func keyPathPrototype() -> List<Element>? {
        let list = List<Element>()
        if let element = prototype(of: Element.self) { list.append(element) }
        return list
    }
}

extension MutableSet: KeyPathTraversable {
    static func keyPathPrototype() -> MutableSet<Element>? {
        let set = MutableSet<Element>()
        if let element = prototype(of: Element.self) { set.insert(element) }
        return set
    }
}

extension Map: KeyPathTraversable {
    static func keyPathPrototype() -> Map<Key, Value>? {
        let map = Map<Key, Value>()
        if let key = Key(mapKeyString: ""), let value = prototype(of: Value.self) {
            map[key] = value
        }
        return map
    }
}

extension LinkingObjects: KeyPathTraversable {
    static func keyPathPrototype() -> LinkingObjects<Element>? {
        prototype(of: Element.self).map { LinkingObjects(prototype: $0) }
    }
}

extension ObjectSchema {
    /// The query-language name of a key path of this class (`"dog.owner.name"`); nil if it reads no `@Persisted` property.
    func keyPathName(_ keyPath: AnyKeyPath) -> String? {
        let tags = SchemaDiscovery.recordingPath { _ = prototype[keyPath: keyPath] }
        guard !tags.isEmpty else { return nil }
        var schema: ObjectSchema? = self
        var names: [String] = []
        for tag in tags {
            guard let current = schema, let index = current.propertyIndex(forTag: tag) else { return nil }
            names.append(current.properties[index].name)
            schema = current.linkTypes[index].flatMap { try? ObjectSchema.schema(for: $0) }
        }
        return names.joined(separator: ".")
    }
}

/// The name of the property (or path of properties) a key path reads, as the
/// query language and `observe(keyPaths:)` spell it — Realm's `_name(for:)`:
/// `_name(for: \Person.dog?.name)` is `"dog.name"`, `_name(for: \Person.dogs[0].age)`
/// is `"dogs.age"`. A key path that reads no `@Persisted` property is a
/// programmer error and stops the program, as in Realm.
///
/// Public, and underscored, for source compatibility: RealmSwift apps call
/// Realm's `_name(for:)` by that name (see the porting guide).
@_documentation(visibility: internal)
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    do {
        guard let name = try ObjectSchema.schema(for: T.self).keyPathName(keyPath) else {
            preconditionFailure("The key path of \(T.self) reads no @Persisted property")
        }
        return name
    } catch {
        preconditionFailure(error.description)
    }
}
