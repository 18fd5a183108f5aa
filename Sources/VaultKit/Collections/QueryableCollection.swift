import Foundation
import VaultCore

/// A collection of objects that can be queried like ``Results``: `List`,
/// `MutableSet` and `LinkingObjects` of objects, and `Results` itself.
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

    /// The objects matching a query (see ``Results/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<QueryElement> {
        do {
            return try results.filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The objects matching a query, throwing a ``QueryError`` for a bad query.
    public func filter(_ predicateFormat: String, arguments: [Any?]) throws(QueryError) -> Results<QueryElement> {
        try results.filter(predicateFormat, arguments: arguments)
    }

    /// The objects sorted by a key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<QueryElement> {
        results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<QueryElement> where S.Element == SortDescriptor {
        results.sorted(by: sortDescriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<QueryElement> where S.Element == String {
        results.distinct(by: keyPaths)
    }

    /// The smallest value of a property, or nil when empty.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { results.min(ofProperty: property) }
    /// The largest value of a property, or nil when empty.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { results.max(ofProperty: property) }
    /// The sum of a numeric property.
    public func sum<T: PersistableValue>(ofProperty property: String) -> T { results.sum(ofProperty: property) }
    /// The average of a numeric property, or nil when empty.
    public func average<T: PersistableValue>(ofProperty property: String) -> T? { results.average(ofProperty: property) }
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
