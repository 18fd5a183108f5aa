import Foundation
import VaultCore

/// The projections of the objects of a query (what `vault.objects(MyProjection.self)`
/// returns): lazy and live like ``Results``, queried with the root class's property names.
public struct ProjectedResults<Element: ProjectionRepresentable>: RandomAccessCollection, CustomStringConvertible {
    /// The root objects.
    public let rootResults: Results<Element.Root>

    init(_ rootResults: Results<Element.Root>) { self.rootResults = rootResults }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rootResults.count }
    /// The projection of the object at `position`.
    public subscript(position: Int) -> Element { Element(projecting: rootResults[position]) }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    public var description: String { "ProjectedResults<\(Element.self)>(\(count) objects)" }

    /// The vault the objects are in.
    public var vault: Vault? { rootResults.vault }
    /// Whether the results read a frozen vault.
    public var isFrozen: Bool { rootResults.isFrozen }

    /// The projections of the objects matching a query on the root class.
    public func filter(_ predicateFormat: String, _ args: Any...) -> ProjectedResults<Element> {
        do {
            return ProjectedResults(try rootResults.filter(predicateFormat, arguments: args))
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The projections sorted by a key path of the root class.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> ProjectedResults<Element> {
        ProjectedResults(rootResults.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// These projections over a frozen copy of the vault.
    public func freeze() -> ProjectedResults<Element> { ProjectedResults(rootResults.freeze()) }
    /// These projections, live, on the calling thread's vault.
    public func thaw() -> ProjectedResults<Element>? {
        guard let thawed = rootResults.thaw() else { return nil }
        return ProjectedResults(thawed)
    }

    /// Observes the root objects; the changes carry the projections.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (VaultCollectionChange<ProjectedResults<Element>>) -> Void) -> NotificationToken {
        rootResults.observe(keyPaths: keyPaths) { change in
            switch change {
            case .initial(let results): block(.initial(ProjectedResults(results)))
            case .update(let results, let deletions, let insertions, let modifications):
                block(.update(ProjectedResults(results), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error): block(.error(error))
            }
        }
    }
}

extension Vault {
    /// The projections of every object of the projection's root class.
    public func objects<Root: Object, P: Projection<Root>>(_ type: P.Type) -> ProjectedResults<P> {
        ProjectedResults(objects(Root.self))
    }
}

// MARK: - projectTo

/// A collection's elements mapped through a key path (`\Person.friends.projectTo.firstName`):
/// live, read through the collection.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible {
    private let countElements: () -> Int
    private let element: (Int) -> Element

    init(count: @escaping () -> Int, element: @escaping (Int) -> Element) {
        countElements = count
        self.element = element
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { countElements() }
    public subscript(position: Int) -> Element { element(position) }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
    public var description: String { "ProjectedCollection<\(Element.self)>(\(count) elements)" }
}

/// Maps a collection of objects through a key path of their class (`projectTo`).
@dynamicMemberLookup
public struct ElementMapper<Element: ObjectBase> {
    let count: () -> Int
    let element: (Int) -> Element

    /// The collection's elements mapped through `member`.
    public subscript<Value>(dynamicMember member: KeyPath<Element, Value>) -> ProjectedCollection<Value> {
        let element = self.element
        return ProjectedCollection(count: count) { element($0)[keyPath: member] }
    }
}

extension List where Element: ObjectBase {
    /// The list's objects mapped through a key path, for `@Projected(\Person.friends.projectTo.firstName)`.
    public var projectTo: ElementMapper<Element> {
        ElementMapper(count: { self.count }, element: { self[$0] })
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects mapped through a key path (see ``List/projectTo``).
    public var projectTo: ElementMapper<Element> {
        ElementMapper(count: { self.count }, element: { self[$0] })
    }
}
