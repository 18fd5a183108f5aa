import Foundation
import VaultCore

/// Objects of one class in a vault, chosen by a query: lazy (nothing runs
/// until read) and live (reading again after a write sees the write).
///
/// ```swift
/// let adults = vault.objects(Person.self)
///     .filter("age >= %d AND name BEGINSWITH[c] %@", 18, "a")
///     .sorted(byKeyPath: "address.city")
/// print(adults.count)                  // SELECT count(*): no objects made
/// for person in adults { … }           // rows fetched in batches
/// let page = adults[100..<120]         // one LIMIT 20 OFFSET 100 query
/// let oldest = adults.max(ofProperty: "age") as Int?   // computed in SQL
/// ```
///
/// Filters, sorting, `distinct(by:)` and aggregates all compile to one SQL
/// statement with bound values (see `QueryCompiler`). A malformed query
/// given to `filter(_:_:)` stops the program with the error's message, as
/// in Realm; `filter(_:arguments:)` throws a ``QueryError`` instead, for query
/// text that is built at run time.
public struct Results<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The vault the objects are in.
    let owner: Vault
    /// The vault the objects are in (Realm's `realm`: optional, as in Realm's collection protocol; never nil for results).
    public var vault: Vault? { owner }
    /// Everything the results read goes through this (made on use: a stored
    /// copy would be one more reference to retain and release per `Results`).
    var reader: ObjectReader { ObjectReader(vault: owner) }
    let schema: ObjectSchema
    let definition: ResultsDefinition
    let compiled: CompiledResults
    private let cache = ResultsCache()

    /// Whether both are copies of one results value (the cache is made once per results).
    func isSameResults(as other: Results<Element>) -> Bool { cache === other.cache }

    init(vault: Vault, schema: ObjectSchema, definition: ResultsDefinition = ResultsDefinition()) throws(QueryError) {
        self.owner = vault
        self.schema = schema
        self.definition = definition
        self.compiled = try CompiledResults(reader: ObjectReader(vault: vault), schema: schema, definition: definition)
        if !definition.predicates.isEmpty || !definition.sort.isEmpty || !definition.distinct.isEmpty {
            // Prepared now (and kept in the statement cache for the first read),
            // so SQLite's objections surface here as a thrown error.
            try reader.prepare(compiled.idQuery.sql, className: schema.className)
        }
    }

    /// Results whose SQL is known good already (a query template's, see QueryTemplates).
    init(vault: Vault, schema: ObjectSchema, definition: ResultsDefinition, compiled: CompiledResults) {
        self.owner = vault
        self.schema = schema
        self.definition = definition
        self.compiled = compiled
    }

    /// Results that cannot fail to compile (no filter, no sort).
    static func all(vault: Vault, schema: ObjectSchema, base: ResultsDefinition.Base = .table) -> Results<Element> {
        var definition = ResultsDefinition()
        definition.base = base
        do {
            return try Results(vault: vault, schema: schema, definition: definition)
        } catch {
            preconditionFailure("VaultKit could not build the query for \(schema.className): \(error)")
        }
    }

    private func refined(_ change: (inout ResultsDefinition) -> Void) throws(QueryError) -> Results<Element> {
        var definition = self.definition
        change(&definition)
        return try Results(vault: owner, schema: schema, definition: definition)
    }

    /// Whether the class has no table (a read-only vault written without it).
    var isAbsent: Bool { reader.isAbsent(schema.className) }

    // MARK: Querying

    /// The objects matching a query in Realm's query language, for example
    /// `"name BEGINSWITH[c] %@ AND ANY tags.name == %@"`.
    ///
    /// A malformed query, an unknown property or a mismatched argument stops
    /// the program with a message naming the problem and its position (query
    /// text is code). Use ``filter(_:arguments:)`` to get a thrown error.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do {
            return try filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The objects matching a query, throwing a ``QueryError`` for a malformed
    /// query, an unknown property, a type mismatch or a wrong argument count.
    public func filter(_ predicateFormat: String, arguments: [Any?]) throws(QueryError) -> Results<Element> {
        guard owner.session.isFrozen else { return try compiledFilter(predicateFormat, arguments) }
        // Frozen results are filtered from any thread, and the query templates are the frozen vault's shared state.
        owner.session.frozenLock.lock()
        defer { owner.session.frozenLock.unlock() }
        return try compiledFilter(predicateFormat, arguments)
    }

    private func compiledFilter(_ predicateFormat: String, _ arguments: [Any?]) throws(QueryError) -> Results<Element> {
        if definition.isPlainTable, let templated = try templatedFilter(predicateFormat, arguments) { return templated }
        let predicate = try QueryParser.parse(predicateFormat, arguments: arguments)
        do {
            return try refined { $0.predicates.append(predicate) }
        } catch {
            throw error.located(in: predicateFormat)
        }
    }

    /// The objects matching a query tree (typed queries and `#Predicate` arrive here).
    func filter(predicate: QueryPredicate) throws(QueryError) -> Results<Element> {
        try refined { $0.predicates.append(predicate) }
    }

    /// The same objects sorted by a property or a key path through to-one links
    /// (`"address.city"`); earlier sorts break ties.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The same objects sorted by several key paths, the first most significant.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        do {
            return try refined { $0.sort = sortDescriptors.map { ($0.keyPath, $0.ascending) } + $0.sort }
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The same objects sorted by a key path, throwing a ``QueryError`` for an
    /// unknown property or a key path through a collection.
    public func sorted(byKeyPathThrowing keyPath: String, ascending: Bool = true) throws(QueryError) -> Results<Element> {
        try refined { $0.sort = [(keyPath, ascending)] + $0.sort }
    }

    /// The first object (in the current order) of each distinct combination of
    /// values of `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        do {
            return try refined { $0.distinct += Array(keyPaths) }
        } catch {
            preconditionFailure(error.description)
        }
    }

    // MARK: Reading

    /// The row ids in order, computed once per vault content version.
    func rowIDs() -> [Int64] {
        // Tested here, not only inside exclusiveIfFrozen: a closure over a generic
        // struct costs a metadata lookup on every call from another module.
        if !owner.session.isFrozen { return cachedRowIDs() }
        return owner.exclusiveIfFrozen { cachedRowIDs() }
    }

    private func cachedRowIDs() -> [Int64] {
        if isAbsent { return [] }
        if cache.version == reader.version, let ids = cache.rowIDs { return ids }
        let ids = imageRowIDs(building: true) ?? reader.rowIDs(compiled.idQuery)
        cache.reset(for: reader.version)
        cache.rowIDs = ids
        return ids
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects (a count query unless cached).
    public var endIndex: Int { count }

    // Index arithmetic without the default range checks, which read `endIndex`
    // (a count query) on every step of a slice's iteration.
    /// `i + 1`, without reading `endIndex`.
    public func index(after i: Int) -> Int { i + 1 }
    /// `i - 1`.
    public func index(before i: Int) -> Int { i - 1 }
    /// `i + distance`, without reading `endIndex`.
    public func index(_ i: Int, offsetBy distance: Int) -> Int { i + distance }
    /// `end - start`.
    public func distance(from start: Int, to end: Int) -> Int { end - start }

    /// The number of objects, counted in SQL (no object is created).
    public var count: Int {
        if !owner.session.isFrozen { return cachedCount() }
        return owner.exclusiveIfFrozen { cachedCount() }
    }

    private func cachedCount() -> Int {
        if isAbsent { return 0 }
        if cache.version == reader.version {
            if let ids = cache.rowIDs { return ids.count }
            if let count = cache.count { return count }
        }
        guard let sql = compiled.countQuery else { return rowIDs().count }
        // A filter the class's image answers is counted in memory (its ids kept for the reads that follow).
        if !definition.isPlainTable, let ids = imageRowIDs(building: true) {
            cache.reset(for: reader.version)
            cache.rowIDs = ids
            return ids.count
        }
        let count = reader.count(sql)
        if cache.version != reader.version { cache.reset(for: reader.version) }
        cache.count = count
        return count
    }

    /// Whether there are no objects (a `LIMIT 1` query).
    public var isEmpty: Bool { first == nil }

    /// The object at `position`, read with the objects around it (a window of
    /// rows), so reading neighbouring positions runs no further query.
    public subscript(position: Int) -> Element {
        if !owner.session.isFrozen { return element(at: position) }
        return owner.exclusiveIfFrozen { element(at: position) }
    }

    private func element(at position: Int) -> Element {
        if cache.version == reader.version, let object = cache.window(at: position) as? Element { return object }
        precondition(position >= 0, "Index \(position) is out of bounds")
        // Far from the start, OFFSET would rescan for every window: read the ids once instead.
        loadWindow(position..<(position + ResultsCache.windowSize), byOffset: position <= ResultsCache.offsetLimit)
        guard let object = cache.window(at: position) as? Element else {
            preconditionFailure("Index \(position) is out of bounds (count \(count))")
        }
        return object
    }

    /// The objects in `bounds`, fetched with one query sized to the range
    /// (`LIMIT bounds.count OFFSET bounds.lowerBound`).
    public subscript(bounds: Range<Int>) -> Slice<Results<Element>> {
        owner.exclusiveIfFrozen { slice(bounds) }
    }

    private func slice(_ bounds: Range<Int>) -> Slice<Results<Element>> {
        precondition(bounds.lowerBound >= 0, "Range \(bounds) is out of bounds")
        if !bounds.isEmpty && !(cache.version == reader.version && cache.window(at: bounds.lowerBound) != nil && cache.window(at: bounds.upperBound - 1) != nil) {
            loadWindow(bounds, byOffset: true)
            precondition(cache.window(at: bounds.upperBound - 1) != nil, "Range \(bounds) is out of bounds (count \(count))")
        }
        return Slice(base: self, bounds: bounds)
    }

    /// Reads the objects at `range` (or as many as exist) into the window cache:
    /// by id when the ids are known (or `byOffset` is false), else with LIMIT/OFFSET.
    private func loadWindow(_ range: Range<Int>, byOffset: Bool) {
        if cache.version != reader.version { cache.reset(for: reader.version) }
        if isAbsent { cache.setWindow(start: range.lowerBound, objects: []); return }
        let objects: [ObjectBase]
        if let ids = cache.rowIDs ?? (compiled.pageQuery == nil || !byOffset ? rowIDs() : nil) {
            // With the ids known, read the window by id (no OFFSET scan).
            let slice = Array(ids[Swift.min(range.lowerBound, ids.count)..<Swift.min(range.upperBound, ids.count)])
            objects = fetch(rowIDs: slice)
        } else if let page = compiled.pageQuery {
            objects = reader.objects(schema, page, arguments: [.integer(Int64(range.count)), .integer(Int64(range.lowerBound))])
        } else {
            objects = []
        }
        cache.setWindow(start: range.lowerBound, objects: objects)
    }

    /// Managed objects for `ids`, in that order (ids no longer present are skipped).
    func fetch(rowIDs ids: [Int64]) -> [ObjectBase] {
        imageObjects(rowIDs: ids) ?? reader.objects(schema, rowIDs: ids)
    }

    /// The first object in order, fetched with LIMIT 1.
    public var first: Element? {
        // The page query is built on first use: shared state of frozen results.
        if !owner.session.isFrozen { return firstElement() }
        return owner.exclusiveIfFrozen { firstElement() }
    }

    private func firstElement() -> Element? {
        if isAbsent { return nil }
        guard let page = compiled.pageQuery else { return rowIDs().first.flatMap { fetch(rowIDs: [$0]).first as? Element } }
        return reader.objects(schema, page, arguments: [.integer(1), .integer(0)]).first as? Element
    }

    /// The last object in order, fetched with LIMIT 1 in reverse order.
    public var last: Element? {
        if !owner.session.isFrozen { return lastElement() }
        return owner.exclusiveIfFrozen { lastElement() }
    }

    private func lastElement() -> Element? {
        if isAbsent { return nil }
        guard let page = compiled.reversePageQuery else { return rowIDs().last.flatMap { fetch(rowIDs: [$0]).first as? Element } }
        return reader.objects(schema, page, arguments: [.integer(1), .integer(0)]).first as? Element
    }

    /// The position of `object`, if it is in the results.
    public func index(of object: Element) -> Int? {
        guard let manager = object.manager, manager.schema === schema, manager.vault.session === owner.session else { return nil }
        return rowIDs().firstIndex(of: manager.rowID)
    }

    /// The position of the first object matching a query, if any.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        do {
            let matching = try filter(predicateFormat, arguments: args)
            let ids = Set(matching.rowIDs())
            return rowIDs().firstIndex { ids.contains($0) }
        } catch {
            preconditionFailure(error.description)
        }
    }

    // MARK: Aggregates

    /// The smallest value of a property (numbers, dates, Decimal), or nil when there are no objects.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? {
        aggregate(.min, property).flatMap { T._vaultDecode($0) }
    }

    /// The largest value of a property, or nil when there are no objects.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? {
        aggregate(.max, property).flatMap { T._vaultDecode($0) }
    }

    /// The sum of a numeric property (0 when there are no objects).
    public func sum<T: PersistableValue>(ofProperty property: String) -> T {
        let value = Self.numericFromMixed(aggregate(.sum, property) ?? .integer(0), as: T.self)
        if let decoded = T._vaultDecode(value) { return decoded }
        if T._vaultPropertyType == .int, let double = value.double, let decoded = T._vaultDecode(.integer(Int64(double))) { return decoded }
        preconditionFailure("The sum of \(schema.className).\(property) is not a \(T.self)")
    }

    /// The average of a numeric property, or nil when there are no objects.
    public func average<T: PersistableValue>(ofProperty property: String) -> T? {
        guard let value = aggregate(.avg, property).map({ Self.numericFromMixed($0, as: T.self) }) else { return nil }
        if let decoded = T._vaultDecode(value) { return decoded }
        if T._vaultPropertyType == .int, let double = value.double { return T._vaultDecode(.integer(Int64(double.rounded()))) }
        if T._vaultPropertyType == .decimal, let double = value.double { return T._vaultDecode(.text("\(double)")) }
        return nil
    }

    /// A mixed property's sum or average (a Decimal128) read as a plain number
    /// when the caller asks for `Int`, `Double`, `Decimal`…, not `AnyVaultValue`.
    private static func numericFromMixed<T: PersistableValue>(_ value: DatabaseValue, as _: T.Type) -> DatabaseValue {
        guard T._vaultPropertyType != .mixed, case .blob = value, let mixed = try? MixedCodec.decode(value), let decimal = mixed.decimalValue else { return value }
        switch T._vaultPropertyType {
        case .decimal: return .text(QuerySQLFunctions.canonical(decimal))
        case .int: return .integer(Int64(truncating: NSDecimalNumber(decimal: decimal)))
        default: return .real(NSDecimalNumber(decimal: decimal).doubleValue)
        }
    }

    private func aggregate(_ step: KeyPathStep, _ property: String) -> DatabaseValue? {
        // (`.none`, not `nil`: DatabaseValue is ExpressibleByNilLiteral.)
        if isAbsent { return step == .sum ? .integer(0) : .none }
        let sql: SQLFragment
        do {
            sql = try compiled.aggregateQuery(step, property, reader: reader, schema: schema)
        } catch {
            preconditionFailure(error.description)
        }
        let value = reader.value(sql)
        return value.isNull ? .none : value
    }

    public var description: String { "Results<\(schema.className)>(\(count) objects)" }
}

/// A sort key: a property or a key path through to-one links, and a direction.
///
/// A string literal is an ascending sort: `results.sorted(by: ["lastName", "firstName"])`.
public struct SortDescriptor: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The key path, with public property names.
    public let keyPath: String
    /// Ascending (smallest first) or descending.
    public let ascending: Bool

    /// A sort by `keyPath`, ascending unless told otherwise.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// An ascending sort by the key path in the literal.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path in the opposite direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}
