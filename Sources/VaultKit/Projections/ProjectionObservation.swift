import Foundation
import VaultCore

// Observing one projection: its root object is observed, and each written root
// property is reported under the name of every projected property that reads it
// (a renamed property under its new name; a path through an embedded object or
// a link under the projected name when its first step changed).

/// Gives the key path of a `@Projected` property without knowing its types.
protocol AnyProjected {
    var anyProjectedKeyPath: AnyKeyPath { get }
}

extension Projected: AnyProjected {
    var anyProjectedKeyPath: AnyKeyPath { projectedKeyPath }
}

/// Realm's name for what a projection class is observed through: every
/// ``Projection`` subclass conforms (it is ``ProjectionRepresentable``).
public typealias ProjectionObservable = ProjectionRepresentable

extension ProjectionRepresentable where Root: ObservableVaultObject {
    /// Observes the projection (Realm's `Projection.observe`): `.change` with
    /// the projection itself — of its own class, `ObjectChange<PersonCard>`, as
    /// Realm's `ObjectChange<Self>` — and the projected properties whose root
    /// properties were written, `.deleted` when the root object is. Values are
    /// given for properties that project a root property directly; `nil` for
    /// paths through objects and collections.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let names = projectedNames()
        // The root's key paths to watch: a directly projected property itself; for a path
        // through an embedded object or a link, every property of the object it reaches.
        let watched = names.filter { keyPaths?.contains($0.projected) ?? true }
        let rootKeyPaths = Array(Set(watched.flatMap { name in name.isDirect ? [name.root] : Self.deepPaths(from: name.root) }))
        return rootObject.observe(keyPaths: rootKeyPaths) { [self] change in
            switch change {
            case .change(_, let properties):
                var reported: [PropertyChange] = []
                for property in properties {
                    for name in names where name.root == property.name {
                        if let keyPaths, !keyPaths.contains(name.projected) { continue }
                        reported.append(name.isDirect ? PropertyChange(name: name.projected, oldValue: property.oldValue, newValue: property.newValue)
                                                      : PropertyChange(name: name.projected, oldValue: nil, newValue: nil))
                    }
                }
                if !reported.isEmpty { block(.change(self, reported)) }
            case .deleted: block(.deleted)
            case .error(let error): block(.error(error))
            }
        }
    }

    /// Observes the projection for changes of the projected properties
    /// `keyPaths` names (Realm's typed form: `card.observe(keyPaths: [\.name])`).
    /// A key path that is not a `@Projected` property is a programmer error.
    public func observe(keyPaths: [PartialKeyPath<Self>], _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: Self.projectedNames(of: keyPaths), block)
    }

    /// The names of the projected properties `keyPaths` read, found by reading
    /// each through a projection of the root class's schema prototype (which
    /// records the root property a read reaches first).
    static func projectedNames(of keyPaths: [PartialKeyPath<Self>]) -> [String] {
        guard let schema = try? ObjectSchema.schema(for: Root.self), let prototype = schema.prototype as? Root else { return [] }
        let probe = Self(projecting: prototype)
        let names = probe.projectedNames()
        return keyPaths.flatMap { keyPath -> [String] in
            guard let tag = SchemaDiscovery.recordingAccess({ _ = probe[keyPath: keyPath] }), let index = schema.propertyIndex(forTag: tag) else {
                preconditionFailure("a key path observed on \(Self.self) is not a @Projected property")
            }
            let root = schema.properties[index].name
            return names.filter { $0.root == root }.map(\.projected)
        }
    }

    /// `root.p` for each property `p` of the class `root` links to (the property itself when it links to nothing).
    private static func deepPaths(from root: String) -> [String] {
        guard let schema = try? ObjectSchema.schema(for: Root.self), let index = schema.index(ofProperty: root),
              let target = schema.linkTypes[index], let targetSchema = try? ObjectSchema.schema(for: target) else { return [root] }
        return [root] + targetSchema.properties.filter { $0.originProperty == nil }.map { "\(root).\($0.name)" }
    }

    /// Each projected property: its name, the root property its key path starts with, and whether it is that property itself.
    func projectedNames() -> [(projected: String, root: String, isDirect: Bool)] {
        guard let schema = try? ObjectSchema.schema(for: Root.self) else { return [] }
        return Mirror(reflecting: self).children.compactMap { child in
            guard let label = child.label, let projected = child.value as? any AnyProjected else { return nil }
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            let keyPath = projected.anyProjectedKeyPath
            if let index = schema.propertyIndex(forKeyPath: keyPath) {
                return (name, schema.properties[index].name, true)
            }
            // A longer path: its first step is the property a prototype read touches first.
            guard let first = schema.firstPropertyRead(by: keyPath) else { return nil }
            return (name, schema.properties[first].name, false)
        }
    }
}
