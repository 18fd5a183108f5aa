import Foundation

/// How `add` and `create` store the objects the added object links to, as
/// Realm stores them: with the caller's update policy (under `.error` a linked
/// unmanaged object whose primary key exists is a duplicate-key error, not a
/// silent overwrite), and — for `create` — only the properties its value gave
/// for each object it described as a dictionary or an array, so that
/// `create(Dog.self, value: ["id": 1, "owner": ["id": 7, "name": "Ann"]], update: .modified)`
/// leaves owner 7's other properties as they are.
struct NestedWrite {
    let policy: UpdatePolicy
    let given: GivenProperties?
}

/// The properties a `create` value gave, per object built from it.
final class GivenProperties {
    private var byObject: [ObjectIdentifier: Set<String>] = [:]
    /// The objects recorded, kept alive while their identifiers are keys.
    private var objects: [ObjectBase] = []

    /// Records that `object` was built from a value giving `properties`.
    func record(_ object: ObjectBase, _ properties: Set<String>) {
        byObject[ObjectIdentifier(object)] = properties
        objects.append(object)
    }

    /// The properties given for `object`; nil for an object not built from a dictionary or an array (all of it is written).
    func properties(of object: ObjectBase) -> Set<String>? { byObject[ObjectIdentifier(object)] }
}
