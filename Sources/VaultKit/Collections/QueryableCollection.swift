import Foundation
import VaultCore

/// A collection of objects that can be queried like ``Results``: `List`,
/// `MutableSet` and `LinkingObjects` of objects, and `Results` itself. The
/// queries themselves (`filter`, `sorted`, `min`…) come with ``VaultCollection``.
///
/// ```swift
/// let oldDogs = person.dogs.filter("age > %d", 10).sorted(byKeyPath: "name")
/// let heaviest = person.dogs.max(ofProperty: "weight") as Double?
/// ```
///
/// A List's results keep the list's order (and its duplicates) until sorted.
public protocol QueryableCollection {
    /// The objects' class.
    associatedtype QueryElement: ObjectBase
    /// The collection's objects as live, lazy ``Results``.
    ///
    /// Stops the program for a collection that is not managed by a vault
    /// (queries run in the vault), as Realm does.
    var results: Results<QueryElement> { get }
}

extension QueryableCollection {
    /// The objects, type-erased (a collection passed as a query argument).
    var queryElements: [ObjectBase] { results.map { $0 } }
}

extension Results: QueryableCollection {
    /// The results themselves.
    public var results: Results<Element> { self }
}

extension CollectionBinding {
    /// Results over the objects of a managed List, MutableSet or LinkingObjects.
    func results<Element: ObjectBase>(of _: Element.Type) -> Results<Element> {
        let schema = vault.schema(for: Element.self)
        let base: ResultsDefinition.Base = property.originProperty == nil ? .collection(self) : .linkingObjects(self)
        return Results.all(vault: vault, schema: schema, base: base)
    }
}

extension List: QueryableCollection where Element: ObjectBase {
    /// The list's objects, in list order.
    public var results: Results<Element> {
        guard let binding else { preconditionFailure("Only a managed List can be queried: add its owner to a vault first") }
        return binding.results(of: Element.self)
    }
}

extension MutableSet: QueryableCollection where Element: Object {
    /// The set's objects.
    public var results: Results<Element> {
        guard let binding else { preconditionFailure("Only a managed MutableSet can be queried: add its owner to a vault first") }
        return binding.results(of: Element.self)
    }
}

extension LinkingObjects: QueryableCollection {
    /// The objects linking here.
    public var results: Results<Element> {
        guard let binding else { preconditionFailure("Only the LinkingObjects of a managed object can be queried") }
        return binding.results(of: Element.self)
    }
}
