import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

extension SyncedVault {
    /// Every synced object as canonical text, read from the vault's rows:
    /// classes and keys sorted, every property by name, lists in order, set
    /// members and map keys sorted, links as their target's class and key.
    /// Two devices hold the same objects exactly when their dumps are equal.
    /// Asymmetric classes are left out (they stay on the device that wrote them).
    public func dump() throws -> String {
        try renderClasses { vault, store, schema, synced in
            var objects: [(key: String, lines: [String])] = []
            for rowID in try vault.storedRowIDs(className: schema.className) {
                guard let (values, _, primaryKey) = try synced.read(vault, rowID: rowID), let key = primaryKey else { continue }
                var object = ["\(schema.className)(\(key.canonicalText))"]
                for field in synced.fields.sorted(by: { $0.path < $1.path }) {
                    let property = field.property
                    if field.isEmbeddedMarker {
                        if let value = values[field.path] { object.append("  \(field.path) = \(value == .column(.null) ? "nil" : "embedded")") }
                        continue
                    }
                    func render(_ value: DatabaseValue) throws -> String {
                        if let coding = field.embeddedElements {
                            guard let rowID = value.int64 else { return "nil" }
                            return coding.render(try coding.snapshot(vault, rowID: rowID, link: store.linkValue))
                        }
                        if property.type == .mixed {
                            let mixed = try MixedSyncCoding.syncValue(try Vault.storedMixed(value)) { className, row in
                                try store.link(className: className, row: row) ?? .null
                            }
                            guard case .link(let reference) = mixed else { return mixed.canonicalText }
                            return "→\(reference.className)(\(reference.primaryKey.canonicalText))"
                        }
                        if let target = property.objectClassName {
                            guard let rowID = value.int64 else { return "nil" }
                            guard let targetKey = try store.key(className: target, row: rowID) else { return "→\(target)(unknown row)" }
                            return "→\(target)(\(targetKey.primaryKey.canonicalText))"
                        }
                        return SyncedClass.syncValue(value, type: property.type)?.canonicalText ?? "?"
                    }
                    switch values[field.path] {
                    case .column(let value)?:
                        object.append("  \(field.path) = \(try render(value))")
                    case .entries(let entries)?:
                        let items: [String]
                        switch property.collectionKind {
                        case .list?: items = try entries.map { try render($0.value) }
                        case .map?: items = try entries.map { "\($0.key ?? ""): \(try render($0.value))" }.sorted()
                        default: items = try entries.map { try render($0.value) }.sorted()
                        }
                        object.append("  \(field.path) = [\(items.joined(separator: ", "))]")
                    case nil:
                        continue
                    }
                }
                objects.append((key.canonicalText, object))
            }
            return objects
        }
    }
}

extension SyncedVault {
    /// The same text as ``dump()``, rendered from the merge states instead of
    /// the rows: equal to it whenever the rows show what the states say (after
    /// every commit, local or remote). Tests check the two against each other.
    func stateDump() throws -> String {
        try renderClasses { vault, store, schema, synced in
            var objects: [(key: String, lines: [String])] = []
            for stored in try store.tables.objectStates(className: schema.className, withRows: true) {
                let (key, state) = try ObjectStateCoding.decode(stored)
                func isVisible(_ value: SyncValue) -> Bool {
                    if case .link(let reference) = value { return (try? store.isLive(reference)) ?? false }
                    return true
                }
                func render(_ value: SyncValue) -> String {
                    guard case .link(let reference) = value else { return value.canonicalText }
                    return isVisible(value) ? "→\(reference.className)(\(reference.primaryKey.canonicalText))" : "nil"
                }
                var object = ["\(schema.className)(\(key.primaryKey.canonicalText))"]
                for field in synced.fields.sorted(by: { $0.path < $1.path }) {
                    // Fields of an embedded object that is not there are not shown.
                    guard field.markerPaths.allSatisfy({ state.properties[$0]?.value == .bool(true) }) else { continue }
                    let property = field.property
                    let path = field.path
                    let collection = state.collections[path] ?? CollectionState()
                    if field.isEmbeddedMarker {
                        object.append("  \(path) = \(state.properties[path].map { $0.value == .null ? "nil" : "embedded" } ?? "<unset>")")
                        continue
                    }
                    func renderElement(_ value: SyncValue) -> String {
                        let isLive = { (reference: SyncObjectReference) in (try? store.isLive(reference)) ?? false }
                        if let coding = field.embeddedElements { return coding.render((try? coding.visible(value, isLive: isLive)) ?? value) }
                        guard property.type == .mixed else { return render(value) }
                        return render((try? MixedSyncCoding.visible(value, isLive: isLive)) ?? value)
                    }
                    switch property.collectionKind {
                    case nil:
                        object.append("  \(path) = \(state.properties[path].map { renderElement($0.value) } ?? "<unset>")")
                    case .list?:
                        let items = ListOrder.visibleElements(of: collection, isVisible: isVisible).compactMap { collection.elements[$0]?.value.value }.map(renderElement)
                        object.append("  \(path) = [\(items.joined(separator: ", "))]")
                    case .set?:
                        let items = collection.members.filter { $0.value.isPresent && isVisible($0.key) }.map { renderElement($0.key) }.sorted()
                        object.append("  \(path) = [\(items.joined(separator: ", "))]")
                    case .map?:
                        let items = collection.entries.compactMap { entry in entry.value.value.map { "\(entry.key): \(renderElement($0))" } }.sorted()
                        object.append("  \(path) = [\(items.joined(separator: ", "))]")
                    }
                }
                objects.append((key.primaryKey.canonicalText, object))
            }
            return objects
        }
    }
}

extension SyncedVault {
    /// Every synced class (asymmetric ones left out) rendered by `body` as
    /// (sort key, lines) per object, classes and objects sorted.
    private func renderClasses(_ body: (Vault, SyncStateStore, ObjectSchema, SyncedClass) throws -> [(key: String, lines: [String])]) throws -> String {
        let vault = try Vault(configuration: configuration)
        let store = SyncStateStore(vault: vault)
        var lines: [String] = []
        for schema in vault.schema.objectSchema.sorted(by: { $0.className < $1.className }) where !schema.isEmbedded && !schema.isAsymmetric {
            let objects = try body(vault, store, schema, try SyncedClass(schema, schemaNamed: { vault.storedSchema(named: $0) }))
            for object in objects.sorted(by: { $0.key < $1.key }) { lines += object.lines }
        }
        return lines.joined(separator: "\n")
    }
}
