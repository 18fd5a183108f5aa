import Foundation
import VaultCore

/// One table a key path passes through: `JOIN table alias ON inner = outer
/// [AND extra]`, where `inner` is a column of this table and `outer` one of the
/// table before (for the first table of a chain: of the outer row, so the
/// condition correlates the chain with it).
struct Join {
    var table: String
    var alias: String
    var inner: String
    var outer: SQLFragment
    var extra: SQLFragment?

    init(table: String, alias: String, inner: String, outer: SQLFragment) {
        self.table = table
        self.alias = alias
        self.inner = inner
        self.outer = outer
    }

    var on: SQLFragment {
        let equality = "\(inner) = " + outer
        guard let extra else { return equality }
        return equality + " AND " + extra
    }
}

/// A key path resolved against the schema.
struct ResolvedPath {
    /// The tables the path passes through; empty for a column of the row itself
    /// and for to-one paths, which are folded into `expression`.
    var joins: [Join] = []
    /// Whether the path passes through a to-many property (comparisons on it are quantified).
    var isToMany = false
    /// The value's SQL, over the last join's alias (or the outer row).
    var expression: SQLFragment
    var type: QueryValueType
    /// The path as written, with its class: `Person.address.city`.
    var name: String
    /// For a mixed value: the path into it and whether `@type` was asked (see QueryCompiler+Mixed).
    var mixed: MixedAccess?
}

extension QueryCompiler {

    /// Where resolution stands after each step.
    private enum Cursor {
        /// At an object's row (joined, with an alias).
        case row(ObjectSchema, alias: String)
        /// At a to-one link column, not yet joined.
        case link(SQLFragment, target: ObjectSchema)
        /// At a map's entries (side-table alias), waiting for `['key']`, `@allKeys` or `@allValues`.
        case map(property: Property, alias: String)
        /// At a value.
        case value(SQLFragment, QueryValueType)
        /// At a mixed value (`expression`), with the subscripts followed into it so far.
        case mixed(SQLFragment, MixedAccess)

        /// A value cursor, or a mixed one for mixed values.
        static func at(_ expression: SQLFragment, _ type: QueryValueType) -> Cursor {
            type == .scalar(.mixed) ? .mixed(expression, MixedAccess()) : .value(expression, type)
        }
    }

    private func schema(named name: String, offset: Int?) throws(QueryError) -> ObjectSchema {
        guard let schema = lookup(name) else { throw QueryError("\(name) is not part of this vault's schema", at: offset) }
        return schema
    }

    /// Resolves a key path from `scope`; non-to-many paths come back as one self-contained expression.
    mutating func resolve(_ path: QueryKeyPath, in scope: Scope) throws(QueryError) -> ResolvedPath {
        let offset = path.offset
        var cursor: Cursor
        var name: String
        let base: Scope.Base
        if let variable = path.variable {
            guard let bound = scope.variables[variable] else {
                throw QueryError("unknown variable $\(variable) (variables are bound by SUBQUERY)", at: offset)
            }
            base = bound
            name = "$" + variable
        } else {
            base = scope.root
            name = ""
        }
        switch base {
        case .row(let schema, let alias):
            cursor = .row(schema, alias: alias)
            if name.isEmpty { name = schema.className }
        case .value(let expression, let type, let valueName):
            cursor = .value(expression, type)
            if name.isEmpty { name = valueName }
        }
        var joins: [Join] = []
        var isToMany = false
        var steps = path.steps[...]

        /// Joins the link the cursor is at, so the next step can read the target's columns.
        func enter(_ cursor: Cursor, _ compiler: inout QueryCompiler) -> (ObjectSchema, String)? {
            switch cursor {
            case .row(let schema, let alias): return (schema, alias)
            case .link(let column, let target):
                let alias = compiler.nextAlias()
                joins.append(Join(table: target.tableName, alias: alias, inner: "\(alias).\"_vk_id\"", outer: column))
                return (target, alias)
            default: return nil
            }
        }

        while let step = steps.popFirst() {
            switch step {
            case .property(let propertyName), .argumentProperty(let propertyName):
                // A %K argument is shown as "%K": it may hold a user's data.
                let shown: String
                if case .argumentProperty = step { shown = "%K" } else { shown = propertyName }
                if case .map(let property, let alias) = cursor {
                    // `map.key` is not a subscript: read the values' property (map of objects).
                    cursor = try mapValues(property: property, alias: alias, offset: offset)
                }
                guard let (schema, alias) = enter(cursor, &self) else {
                    throw QueryError("'\(shown)' cannot follow \(name), which is not an object", at: offset)
                }
                guard let property = schema[propertyName] else {
                    throw QueryError(shown == "%K" ? "the %K argument is not a property of \(schema.className)" : "\(schema.className) has no property named '\(propertyName)'", at: offset)
                }
                name += "." + (shown == "%K" ? property.name : propertyName)
                let column = SQLFragment("\(alias).\(property.columnSQL)")
                if let origin = property.originProperty {
                    // LinkingObjects: the objects of the origin class whose origin property holds this row.
                    let originSchema = try self.schema(named: property.objectClassName ?? "", offset: offset)
                    guard let originProperty = originSchema[origin] else {
                        throw QueryError("\(originSchema.className) has no property named '\(origin)'", at: offset)
                    }
                    let target = nextAlias()
                    if originProperty.isColumn {
                        joins.append(Join(table: originSchema.tableName, alias: target,
                                          inner: "\(target).\(originProperty.columnSQL)", outer: SQLFragment("\(alias).\"_vk_id\"")))
                    } else {
                        let side = nextAlias()
                        joins.append(Join(table: originSchema.collectionTableName(for: originProperty), alias: side, inner: "\(side).\"value\"", outer: SQLFragment("\(alias).\"_vk_id\"")))
                        joins.append(Join(table: originSchema.tableName, alias: target, inner: "\(target).\"_vk_id\"", outer: SQLFragment("\(side).\"_vk_owner\"")))
                    }
                    isToMany = true
                    cursor = .row(originSchema, alias: target)
                } else if let kind = property.collectionKind {
                    let side = nextAlias()
                    joins.append(Join(table: schema.collectionTableName(for: property), alias: side, inner: "\(side).\"_vk_owner\"", outer: SQLFragment("\(alias).\"_vk_id\"")))
                    switch kind {
                    case .map:
                        cursor = .map(property: property, alias: side)
                    case .list, .set:
                        isToMany = true
                        let value = SQLFragment("\(side).\"value\"")
                        if let target = property.objectClassName {
                            cursor = .link(value, target: try self.schema(named: target, offset: offset))
                        } else {
                            cursor = .at(value, .scalar(property.type))
                        }
                    }
                } else if let target = property.objectClassName {
                    cursor = .link(column, target: try self.schema(named: target, offset: offset))
                } else {
                    cursor = .at(column, .scalar(property.type))
                }
            case .mapKey(let key):
                if case .mixed(let expression, var access) = cursor {
                    try access.append(.mapKey(key), after: name, offset: offset)
                    name += "['\(key)']"
                    cursor = .mixed(expression, access)
                    continue
                }
                guard case .map(let property, let alias) = cursor, let last = joins.indices.last else {
                    throw QueryError("['\(key)'] applies to a Map property; \(name) is not one", at: offset)
                }
                joins[last].extra = SQLFragment("\(alias).\"key\" = ?", [.text(key)])
                name += "['\(key)']"
                cursor = try mapValues(property: property, alias: alias, offset: offset)
            case .allKeys:
                guard case .map(_, let alias) = cursor else { throw QueryError("@allKeys applies to a Map property; \(name) is not one", at: offset) }
                isToMany = true
                name += ".@allKeys"
                cursor = .value(SQLFragment("\(alias).\"key\""), .scalar(.string))
            case .allValues:
                guard case .map(let property, let alias) = cursor else { throw QueryError("@allValues applies to a Map property; \(name) is not one", at: offset) }
                isToMany = true
                name += ".@allValues"
                cursor = try mapValues(property: property, alias: alias, offset: offset)
            case .index, .everyElement, .type:
                guard case .mixed(let expression, var access) = cursor else {
                    throw QueryError("\(step.text) applies to a mixed (AnyVaultValue) value; \(name) is not one", at: offset)
                }
                try access.append(step, after: name, offset: offset)
                name += step.isSubscript ? step.text : "." + step.text
                cursor = .mixed(expression, access)
            case .count, .min, .max, .sum, .avg:
                if step == .count, case .mixed(let expression, let access) = cursor, !access.isType, access.steps.isEmpty ? !isToMany : true {
                    // The size of a mixed value's list or dictionary.
                    name += ".@size"
                    cursor = .value(try access.sizeExpression(of: expression, name: name, offset: offset), .scalar(.int))
                    continue
                }
                if case .map(let property, let alias) = cursor {
                    isToMany = true
                    cursor = try mapValues(property: property, alias: alias, offset: offset)
                }
                if !isToMany {
                    // `name.@count` / `@size` on a string or Data: its length.
                    if step == .count, case .value(let expression, let type) = cursor, type == .scalar(.string) || type == .scalar(.data) {
                        name += ".@count"
                        cursor = .value("length(" + expression + ")", .scalar(.int))
                        continue
                    }
                    throw QueryError("\(step.text) applies to a List, MutableSet, Map or LinkingObjects; \(name) is not one", at: offset)
                }
                name += "." + step.text
                var aggregated: SQLFragment
                var type: QueryValueType
                if step == .count {
                    aggregated = SQLFragment("count(*)")
                    type = .scalar(.int)
                } else {
                    var valueExpression: SQLFragment
                    var valueType: QueryValueType
                    switch cursor {
                    case .value(let expression, let t):
                        valueExpression = expression
                        valueType = t
                    case .mixed(let expression, let access) where access.steps.isEmpty && !access.isType:
                        valueExpression = expression
                        valueType = .scalar(.mixed)
                    default:
                        // A collection of objects: `@sum.likes` names the property.
                        let next = steps.popFirst()
                        var named: String?
                        if case .property(let propertyName)? = next { named = propertyName }
                        if case .argumentProperty(let propertyName)? = next { named = propertyName }
                        guard let propertyName = named, let (schema, alias) = enter(cursor, &self),
                              let property = schema[propertyName], property.isColumn, property.objectClassName == nil else {
                            throw QueryError("\(step.text) on a collection of objects must name a value property, as in \(name).price", at: offset)
                        }
                        name += "." + property.name
                        valueExpression = SQLFragment("\(alias).\(property.columnSQL)")
                        valueType = .scalar(property.type)
                    }
                    (aggregated, type) = try Self.aggregate(step, valueExpression, valueType, name: name, offset: offset)
                }
                let (from, correlation) = Self.fromClause([joins])
                cursor = .at("(SELECT " + aggregated + from + " WHERE " + correlation + ")", type)
                joins = []
                isToMany = false
            }
        }

        let expression: SQLFragment
        let type: QueryValueType
        var mixed: MixedAccess?
        switch cursor {
        case .mixed(let value, let access):
            expression = value
            type = .scalar(.mixed)
            mixed = access
        case .row(let schema, let alias):
            expression = SQLFragment("\(alias).\"_vk_id\"")
            type = .link(schema.className)
        case .link(let column, let target):
            expression = column
            type = .link(target.className)
        case .value(let value, let valueType):
            expression = value
            type = valueType
        case .map(let property, let alias):
            // A map compared directly: its values (ANY).
            isToMany = true
            let values = try mapValues(property: property, alias: alias, offset: offset)
            if case .mixed(let value, let access) = values {
                expression = value
                type = .scalar(.mixed)
                mixed = access
                break
            }
            guard case .value(let value, let valueType) = values else {
                guard let target = property.objectClassName else { throw QueryError("unsupported map", at: offset) }
                expression = SQLFragment("\(alias).\"value\"")
                type = .link(target)
                break
            }
            expression = value
            type = valueType
        }
        var resolved = ResolvedPath(joins: joins, isToMany: isToMany, expression: expression, type: type, name: name, mixed: mixed)
        if !isToMany && !joins.isEmpty {
            // To-one: one scalar subquery (NULL when a link on the way is nil).
            let (from, correlation) = Self.fromClause([joins])
            resolved.expression = "(SELECT " + expression + from + " WHERE " + correlation + ")"
            resolved.joins = []
        }
        return resolved
    }

    /// The values of a map whose side table is at `alias` (joining the target for maps of objects).
    private func mapValues(property: Property, alias: String, offset: Int?) throws(QueryError) -> Cursor {
        let value = SQLFragment("\(alias).\"value\"")
        if let target = property.objectClassName {
            return .link(value, target: try schema(named: target, offset: offset))
        }
        return .at(value, .scalar(property.type))
    }

    private static func aggregate(_ step: KeyPathStep, _ expression: SQLFragment, _ type: QueryValueType, name: String, offset: Int?) throws(QueryError) -> (SQLFragment, QueryValueType) {
        guard case .scalar(let scalar) = type else {
            throw QueryError("\(step.text) needs values, not objects (\(name))", at: offset)
        }
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal]
        let ordered: Set<PropertyType> = numeric.union([.date])
        if scalar == .mixed {
            // Realm's mixed aggregates: min/max over every value, sum/avg over the numbers (as Decimal128).
            let function = ["@min": "vk_mixed_min", "@max": "vk_mixed_max", "@sum": "vk_mixed_sum", "@avg": "vk_mixed_avg"][step.text] ?? "vk_mixed_max"
            return ("\(function)(" + expression + ")", type)
        }
        switch step {
        case .min, .max:
            guard ordered.contains(scalar) else { throw QueryError("\(step.text) applies to numbers and dates; \(name) is a \(scalar.rawValue)", at: offset) }
            let function = step == .min ? "min" : "max"
            let argument = scalar == .decimal ? "(" + expression + " COLLATE vk_decimal)" : expression
            return ("\(function)(" + argument + ")", type)
        case .sum:
            guard numeric.contains(scalar) else { throw QueryError("@sum applies to numbers; \(name) is a \(scalar.rawValue)", at: offset) }
            if scalar == .decimal { return ("vk_decimal_sum(" + expression + ")", type) }
            return ("coalesce(sum(" + expression + "), 0)", scalar == .int ? .scalar(.int) : .scalar(.double))
        case .avg:
            guard numeric.contains(scalar) else { throw QueryError("@avg applies to numbers; \(name) is a \(scalar.rawValue)", at: offset) }
            if scalar == .decimal { return ("vk_decimal_avg(" + expression + ")", type) }
            return ("avg(" + expression + ")", .scalar(.double))
        default:
            return (SQLFragment("count(*)"), .scalar(.int))
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`.
    mutating func subqueryCount(_ collection: QueryKeyPath, variable: String, predicate: QueryPredicate, offset: Int?, in scope: Scope) throws(QueryError) -> ResolvedPath {
        let resolved = try resolve(collection, in: scope)
        guard resolved.isToMany, let last = resolved.joins.last else {
            throw QueryError("SUBQUERY needs a List, MutableSet, Map or LinkingObjects key path; \(resolved.name) is not one", at: collection.offset ?? offset)
        }
        var inner = scope
        switch resolved.type {
        case .link(let className):
            guard let schema = lookup(className) else { throw QueryError("\(className) is not part of this vault's schema", at: offset) }
            var joins = resolved.joins
            var alias = last.alias
            if resolved.expression.sql != "\(alias).\"_vk_id\"" {
                // The elements are link values: join their table so `$x.property` can read it.
                alias = nextAlias()
                joins.append(Join(table: schema.tableName, alias: alias, inner: "\(alias).\"_vk_id\"", outer: resolved.expression))
            }
            inner.variables[variable] = .row(schema, alias: alias)
            let condition = try compile(predicate, in: inner)
            let (from, correlation) = Self.fromClause([joins])
            return ResolvedPath(expression: "(SELECT count(*)" + from + " WHERE " + correlation + " AND " + condition + ")", type: .scalar(.int), name: "SUBQUERY(\(resolved.name)).@count")
        case .scalar:
            inner.variables[variable] = .value(resolved.expression, type: resolved.type, name: "$" + variable)
            let condition = try compile(predicate, in: inner)
            let (from, correlation) = Self.fromClause([resolved.joins])
            return ResolvedPath(expression: "(SELECT count(*)" + from + " WHERE " + correlation + " AND " + condition + ")", type: .scalar(.int), name: "SUBQUERY(\(resolved.name)).@count")
        }
    }

    /// A key path for sorting, distinct or an aggregate: a single value per object.
    mutating func resolveSingleValue(_ keyPath: String, in scope: Scope, purpose: String) throws(QueryError) -> ResolvedPath {
        let steps = keyPath.split(separator: ".", omittingEmptySubsequences: false).map { KeyPathStep.property(String($0)) }
        let resolved = try resolve(QueryKeyPath(variable: nil, steps: steps, offset: nil), in: scope)
        guard !resolved.isToMany else {
            throw QueryError("cannot \(purpose) by \(resolved.name): it passes through a List, MutableSet, Map or LinkingObjects")
        }
        guard case .scalar = resolved.type else {
            throw QueryError("cannot \(purpose) by \(resolved.name): it is a link, not a value (name one of its properties, as in \(keyPath).name)")
        }
        return resolved
    }
}
