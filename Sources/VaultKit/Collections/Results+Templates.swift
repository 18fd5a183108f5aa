import Foundation
import VaultCore

/// `filter(_:arguments:)` on a class's objects through a compiled-query
/// template (see Query/QueryTemplates): parsed and compiled on the first call
/// of a query shape, only re-bound on the next ones.
extension Results {
    /// The filtered results through a template, or nil when this call's
    /// arguments cannot use one (it then compiles as usual).
    func templatedFilter(_ format: String, _ arguments: [Any?]) throws(QueryError) -> Results<Element>? {
        var values: [QueryValue] = []
        values.reserveCapacity(arguments.count)
        for index in arguments.indices {
            // Borrowed from the array, not copied out of it first.
            guard let value = QueryValue.from(argument: arguments[index]) else { return nil }
            values.append(value)
        }
        guard let kinds = QueryTemplateCache.kinds(of: values) else { return nil }
        let key = QueryTemplateCache.Key(schema: ObjectIdentifier(schema), format: format, kinds: kinds)
        if let template = owner.session.queryTemplates.template(for: key) {
            return instantiate(template, with: values)
        }
        if owner.session.queryTemplates.isRefused(key) { return nil }
        // The first call of this shape compiles as usual: its errors are the query's.
        let predicate = try QueryParser.parse(format, arguments: arguments)
        var definition = self.definition
        definition.predicates.append(predicate)
        let results: Results<Element>
        do {
            results = try Results(vault: owner, schema: schema, definition: definition)
        } catch {
            throw error.located(in: format)
        }
        let template = makeTemplate(format, predicate: predicate, values: values, compiled: results.compiled)
        owner.session.queryTemplates.store(template, for: key)
        return results
    }

    private func instantiate(_ template: QueryTemplate, with values: [QueryValue]) -> Results<Element> {
        var bindings: [DatabaseValue] = []
        bindings.reserveCapacity(template.bindingSlots.count)
        for slot in template.bindingSlots {
            switch slot {
            case .constant(let value): bindings.append(value)
            case .argument(let index): bindings.append(QueryTemplateCache.binding(of: values[index]) ?? .null)
            }
        }
        var definition = self.definition
        definition.appendTemplated(template, arguments: values)
        return Results(vault: owner, schema: schema, definition: consume definition, compiled: template.compiled.rebinding(bindings))
    }

    /// Compiles the query again with sentinel arguments and keeps what both
    /// compilations share; nil when an argument shapes the SQL or is transformed.
    private func makeTemplate(_ format: String, predicate: QueryPredicate, values: [QueryValue], compiled: CompiledResults) -> QueryTemplate? {
        guard compiled.isTemplatable else { return nil }
        let sentinels = values.enumerated().map { QueryTemplateCache.sentinel(like: $1, index: $0) }
        guard let sentinelPredicate = try? QueryParser.parse(format, arguments: sentinels.map(\.argument)) else { return nil }
        let realValues = predicate.values, sentinelValues = sentinelPredicate.values
        let erased = [QueryValue](repeating: .null, count: realValues.count)
        guard realValues.count == sentinelValues.count,
              predicate.replacingValues(erased) == sentinelPredicate.replacingValues(erased),
              let valueSlots = QueryTemplateCache.slots(realValues, sentinelValues, real: values, sentinels: sentinels) else { return nil }
        var definition = self.definition
        definition.predicates.append(sentinelPredicate)
        guard let other = try? CompiledResults(reader: reader, schema: schema, definition: definition),
              other.isTemplatable, other.idQuery.sql == compiled.idQuery.sql, other.countQuery?.sql == compiled.countQuery?.sql,
              let bindingSlots = QueryTemplateCache.slots(compiled.idQuery.bindings, other.idQuery.bindings,
                                                          real: values.map(QueryTemplateCache.binding(of:)).map { $0 ?? .null },
                                                          sentinels: sentinels.map(QueryTemplateCache.binding(of:)).map { $0 ?? .null })
        else { return nil }
        let slots = zip(bindingSlots, compiled.idQuery.bindings).map { slot, value -> QueryTemplate.Slot in
            slot.map { .argument($0) } ?? .constant(value)
        }
        return QueryTemplate(predicate: predicate, valueSlots: valueSlots, compiled: compiled, bindingSlots: slots)
    }
}

extension QueryValue {
    /// The Swift value a query argument of this kind is given as.
    var argument: Any? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .int(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .uuid(let v): v
        case .objectId(let v): v
        case .decimal(let v): v
        case .object(let reference): reference.object
        case .mixed: nil
        }
    }
}
