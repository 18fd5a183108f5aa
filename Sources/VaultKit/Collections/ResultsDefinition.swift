import Foundation
import VaultCore

/// What a `Results` reads: which objects (a class's table, or the members of a
/// list, set or backlink), filters, sort order and distinct key paths.
struct ResultsDefinition {
    enum Base {
        case table
        /// The objects in a managed List (in list order) or MutableSet.
        case collection(CollectionBinding)
        /// The objects linking to a managed object (LinkingObjects).
        case linkingObjects(CollectionBinding)
    }
    var base: Base = .table
    /// The filters, in order. A query template's filter is built on first use
    /// (see QueryTemplates): most results made from a template never need it.
    var predicates: [QueryPredicate] {
        get { templated.map { builtPredicates + [$0.predicate()] } ?? builtPredicates }
        set {
            builtPredicates = newValue
            templated = nil
        }
    }
    private var builtPredicates: [QueryPredicate] = []
    private var templated: TemplatedPredicate?
    var sort: [(keyPath: String, ascending: Bool)] = []
    var distinct: [String] = []

    /// Adds a template's filter with this call's arguments, without building it.
    mutating func appendTemplated(_ template: QueryTemplate, arguments: [QueryValue]) {
        if let earlier = templated { builtPredicates.append(earlier.predicate()) }
        templated = TemplatedPredicate(template: template, arguments: arguments)
    }

    var isPlainTable: Bool {
        if case .table = base, builtPredicates.isEmpty, templated == nil, sort.isEmpty, distinct.isEmpty { return true }
        return false
    }
}

/// A query template's predicate with one call's arguments, built when asked for.
struct TemplatedPredicate {
    let template: QueryTemplate
    let arguments: [QueryValue]

    func predicate() -> QueryPredicate {
        var values = template.values
        for (position, slot) in template.valueSlots.enumerated() {
            if let argument = slot { values[position] = arguments[argument] }
        }
        return template.predicate.replacingValues(values)
    }
}

/// Per-`Results` caches, valid for one content version of the vault.
final class ResultsCache {
    static let windowSize = 64
    /// Beyond this offset a window is read by row id rather than with OFFSET.
    static let offsetLimit = 2048

    private(set) var version: UInt64 = 0
    var rowIDs: [Int64]?
    var count: Int?
    private var windowStart = 0
    private var windowObjects: [ObjectBase] = []

    func reset(for version: UInt64) {
        self.version = version
        rowIDs = nil
        count = nil
        windowObjects = []
    }

    func window(at position: Int) -> ObjectBase? {
        let index = position - windowStart
        return windowObjects.indices.contains(index) ? windowObjects[index] : nil
    }

    func setWindow(start: Int, objects: [ObjectBase]) {
        windowStart = start
        windowObjects = objects
    }
}
