import Foundation
import VaultCore

/// What every collection of a vault offers, so that code can be generic over
/// them (Realm's `RealmCollection`): ``Results``, ``List``, ``MutableSet`` and
/// ``LinkingObjects`` conform, and ``AnyVaultCollection`` erases which one it is.
///
/// ```swift
/// func names<C: VaultCollection>(_ people: C) -> [String] where C.Element == Person {
///     people.filter("age >= 18").sorted(byKeyPath: "name").map(\.name)
/// }
/// ```
///
/// Queries (`filter`, `where`, `sorted`, `distinct`, `min`/`max`/`sum`/`average`
/// of a property, `index(matching:)`) are for collections of objects, as in
/// Realm; they run in the vault, so the collection must be managed.
public protocol VaultCollection: RandomAccessCollection, CustomStringConvertible, ThreadConfined, Equatable where Index == Int {
    /// The vault managing the collection; `nil` while unmanaged (Realm's `realm`).
    var vault: Vault? { get }
    /// Every element's value of property `key` (for values, `"self"`: the
    /// elements), in order, as an array (`[Any]`; nil as `NSNull`).
    func value(forKey key: String) -> Any?
    /// Sets property `key` of every element (objects only; inside a write).
    func setValue(_ value: Any?, forKey key: String)
    /// Calls `block` with the collection's changes (see ``VaultCollectionChange``).
    func observe(keyPaths: [String]?, _ block: @escaping (VaultCollectionChange<Self>) -> Void) -> NotificationToken
}

/// VaultKit's collections, whose objects can be queried as `Results` (every
/// `VaultCollection` of VaultKit conforms; kept out of the public protocol).
protocol ObjectResultsProviding {
    /// The collection's objects as `Results<Element>` (boxed); nil for values and
    /// for an unmanaged collection.
    func objectResults() -> Any?
}

extension VaultCollection {
    /// The position of `element`: the same stored object, or an equal stored value.
    public func index(of element: Element) -> Int? {
        if let object = element as? ObjectBase {
            return firstIndex { ($0 as? ObjectBase)?.isSameObject(as: object) ?? false }
        }
        guard let value = element as? any PersistableValue else { return nil }
        let encoded = value._vaultEncoded
        return firstIndex { ($0 as? any PersistableValue)?._vaultEncoded == encoded }
    }

    /// The elements at `indexes`, in order.
    public func objects(at indexes: IndexSet) -> [Element] { indexes.map { self[$0] } }

    /// `value(forKey:)` for a key path (one step: a property name, or `"self"`).
    public func value(forKeyPath keyPath: String) -> Any? { value(forKey: keyPath) }
}

extension VaultCollection where Element: ObjectBase {
    /// The collection's objects as live `Results` (stops the program for an unmanaged collection).
    var queryResults: Results<Element> {
        guard let results = (self as? any ObjectResultsProviding)?.objectResults() as? Results<Element> else {
            preconditionFailure("Queries on a \(Self.self) need it to be managed by a vault: they run in the vault")
        }
        return results
    }

    /// The objects matching a query in Realm's query language (see ``Results/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do {
            return try queryResults.filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The objects matching a query, throwing a ``QueryError`` for a bad query.
    public func filter(_ predicateFormat: String, arguments: [Any?]) throws(QueryError) -> Results<Element> {
        try queryResults.filter(predicateFormat, arguments: arguments)
    }

    /// The objects sorted by a key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        queryResults.sorted(by: sortDescriptors)
    }

    /// The first object of each distinct combination of values of `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        queryResults.distinct(by: keyPaths)
    }

    /// The position of the first object matching a query, if any.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let matching: Results<Element>
        do {
            matching = try queryResults.filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure(error.description)
        }
        guard let first = matching.first else { return nil }
        return index(of: first)
    }

    /// The smallest value of a property, or nil when empty.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { queryResults.min(ofProperty: property) }
    /// The largest value of a property, or nil when empty.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { queryResults.max(ofProperty: property) }
    /// The sum of a numeric property.
    public func sum<T: PersistableValue>(ofProperty property: String) -> T { queryResults.sum(ofProperty: property) }
    /// The average of a numeric property, or nil when empty.
    public func average<T: PersistableValue>(ofProperty property: String) -> T? { queryResults.average(ofProperty: property) }
}

/// Key-value coding shared by the collections: objects by property, values by `"self"`.
enum CollectionKeyValueCoding {
    static func value<C: Collection>(forKey key: String, in collection: C) -> Any? {
        collection.map { element -> Any in
            if let object = element as? ObjectBase { return object[key] ?? NSNull() }
            precondition(key == "self", "A collection of \(C.Element.self) values has no property '\(key)': use \"self\"")
            return element
        }
    }

    static func setValue<C: Collection>(_ value: Any?, forKey key: String, in collection: C) {
        for element in Array(collection) {
            guard let object = element as? ObjectBase else {
                preconditionFailure("setValue(_:forKey:) sets a property of objects; \(C.Element.self) values have none")
            }
            object[key] = value
        }
    }
}
