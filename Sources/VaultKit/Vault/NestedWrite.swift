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

/// The properties a `create` value gave, per object built from it; and the
/// copies `create` made of objects another vault manages.
final class GivenProperties {
    private var byObject: [ObjectIdentifier: Set<String>] = [:]
    /// The objects recorded, kept alive while their identifiers are keys.
    private var objects: [ObjectBase] = []

    /// A managed object's row in its own vault: the vault instance, the class and the row id.
    struct SourceRow: Hashable {
        let vault: ObjectIdentifier
        let className: String
        let rowID: Int64
    }

    /// The unmanaged copy made of each object of another vault that `create`
    /// met, by its row there: a cycle of links (a → b → a) copies each once
    /// (objects read from a vault are new instances per read, so identity
    /// cannot tell that the second `a` is the first).
    private var copies: [SourceRow: ObjectBase] = [:]

    /// Copies `source` (an object managed elsewhere) into a new unmanaged object
    /// of its class, once per source row; the copy is then stored like any unmanaged object.
    func copy(of source: ObjectBase, manager: ManagedObject) -> ObjectBase {
        let key = SourceRow(vault: ObjectIdentifier(manager.vault), className: manager.schema.className, rowID: manager.rowID)
        if let made = copies[key] { return made }
        let made = type(of: source).init()
        copies[key] = made
        made.assignValues(from: source)
        return made
    }

    /// Records `copy` as the copy of `source` (create's own object, when its value is another vault's object).
    func recordCopy(_ copy: ObjectBase, of manager: ManagedObject) {
        copies[SourceRow(vault: ObjectIdentifier(manager.vault), className: manager.schema.className, rowID: manager.rowID)] = copy
    }

    /// The copies made of unmanaged objects the value held, by the original's identity
    /// (the originals are kept alive in `objects`, so an identity is not reused meanwhile).
    private var unmanagedCopies: [ObjectIdentifier: ObjectBase] = [:]
    /// The copies themselves: they are stored as they are, never copied again.
    private var madeCopies: Set<ObjectIdentifier> = []

    /// Whether `object` is one this `create` made (from a dictionary, an array, or as a copy):
    /// an unmanaged object it did not make is the caller's, which `create` copies (Realm's rule:
    /// `create` never manages an object it was given; `add` does).
    func madeHere(_ object: ObjectBase) -> Bool {
        let id = ObjectIdentifier(object)
        return byObject[id] != nil || madeCopies.contains(id)
    }

    /// The copy of the caller's unmanaged `source`, made once per object (a cycle of
    /// unmanaged objects is copied once each).
    func copy(ofUnmanaged source: ObjectBase) -> ObjectBase {
        let id = ObjectIdentifier(source)
        if let made = unmanagedCopies[id] { return made }
        let made = type(of: source).init()
        recordCopy(made, ofUnmanaged: source)
        made.assignValues(from: source)
        return made
    }

    /// Records `copy` as the copy of the caller's unmanaged `source` (create's own object,
    /// when its value is such an object: a link back to it finds the copy).
    func recordCopy(_ copy: ObjectBase, ofUnmanaged source: ObjectBase) {
        unmanagedCopies[ObjectIdentifier(source)] = copy
        madeCopies.insert(ObjectIdentifier(copy))
        objects.append(source)
        objects.append(copy)
    }

    /// Records that `object` was built from a value giving `properties`.
    func record(_ object: ObjectBase, _ properties: Set<String>) {
        byObject[ObjectIdentifier(object)] = properties
        objects.append(object)
    }

    /// The properties given for `object`; nil for an object not built from a dictionary or an array (all of it is written).
    func properties(of object: ObjectBase) -> Set<String>? { byObject[ObjectIdentifier(object)] }
}
