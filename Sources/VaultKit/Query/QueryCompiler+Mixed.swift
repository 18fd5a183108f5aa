import Foundation
import VaultCore

/// A key path's way into a mixed value: the subscripts after the property
/// (`value['a'][0][*]`) and whether it ends in `@type`.
struct MixedAccess: Equatable {
    var steps: [MixedSQLFunctions.PathStep] = []
    var isType = false

    mutating func append(_ step: KeyPathStep, after name: String, offset: Int?) throws(QueryError) {
        guard !isType else { throw QueryError("nothing can follow @type (\(name).@type)", at: offset) }
        switch step {
        case .mapKey(let key): steps.append(.key(key))
        case .index(let index): steps.append(.index(index))
        case .everyElement: steps.append(.everyElement)
        case .type: isType = true
        default: throw QueryError("\(step.text) cannot follow the mixed value \(name)", at: offset)
        }
        guard steps.count <= MixedValue.maximumDepth else {
            throw QueryError("a path into a mixed value has at most \(MixedValue.maximumDepth) subscripts", at: offset)
        }
    }

    /// The steps as SQL arguments: `, ?, ?…` with their bindings.
    var stepArguments: SQLFragment {
        SQLFragment(String(repeating: ", ?", count: steps.count), steps.map(\.sqlValue))
    }

    /// `vk_mixed_size(value, steps…)`: the element count of the collection there.
    func sizeExpression(of expression: SQLFragment, name: String, offset: Int?) throws(QueryError) -> SQLFragment {
        guard !steps.contains(.everyElement) else {
            throw QueryError("@size needs one collection; \(name) goes through [*]", at: offset)
        }
        return "vk_mixed_size(" + expression + stepArguments + ")"
    }
}

/// Comparisons on mixed values compile to `vk_mixed_test` (MixedSQLFunctions),
/// which applies Realm's mixed rules inside SQLite: numbers compare across
/// their types, every other type only with itself.
extension QueryCompiler {
    func mixedCondition(_ path: ResolvedPath, _ access: MixedAccess, _ op: ComparisonOperator, _ values: [QueryValue], options: ComparisonOptions, offset: Int?) throws(QueryError) -> SQLFragment {
        if access.isType { return try typeCondition(path, access, op, values, offset: offset) }
        var encoded: [DatabaseValue] = []
        for value in values { encoded.append(MixedCodec.encode(try Self.mixedValue(of: value, name: path.name, offset: offset))) }
        func test(_ operation: MixedSQLFunctions.Operation, _ argument: DatabaseValue) -> SQLFragment {
            "(vk_mixed_test(" + path.expression + SQLFragment(", \(operation.rawValue), \(options.rawValue), ?", [argument]) + access.stepArguments + ") = 1)"
        }
        switch op {
        case .in:
            guard !encoded.isEmpty else { return SQLFragment("0") }
            return "(" + SQLFragment.joined(encoded.map { test(.equal, $0) }, separator: " OR ") + ")"
        case .between:
            guard encoded.count == 2 else { return SQLFragment("0") }
            let bounds = try values.map { value throws(QueryError) in try Self.mixedValue(of: value, name: path.name, offset: offset) }
            return test(.between, MixedCodec.encode(.list(bounds)))
        default:
            guard let argument = encoded.first else { return SQLFragment("0") }
            return test(Self.operation(op), argument)
        }
    }

    private func typeCondition(_ path: ResolvedPath, _ access: MixedAccess, _ op: ComparisonOperator, _ values: [QueryValue], offset: Int?) throws(QueryError) -> SQLFragment {
        guard [.equal, .notEqual, .in].contains(op) else {
            throw QueryError("@type can be compared with ==, != or IN, not \(op.rawValue)", at: offset)
        }
        var names: [String] = []
        for value in values {
            guard case .string(let name) = value, MixedTypeName.matcher(for: name) != nil else {
                throw QueryError("@type is compared with a type name (\(MixedTypeName.known))", at: offset)
            }
            names.append(name)
        }
        let operation: MixedSQLFunctions.Operation = op == .notEqual ? .typeNotEqual : .typeEqual
        let tests = names.map { name in
            "(vk_mixed_test(" + path.expression + SQLFragment(", \(operation.rawValue), 0, ?", [.text(name)]) + access.stepArguments + ") = 1)"
        }
        return tests.isEmpty ? SQLFragment("0") : "(" + SQLFragment.joined(tests, separator: " OR ") + ")"
    }

    /// A mixed value compared with another key path: the other side is
    /// converted to the mixed encoding first (`vk_mixed_of`).
    func mixedPathCondition(_ left: ResolvedPath, _ op: ComparisonOperator, _ right: ResolvedPath, options: ComparisonOptions, offset: Int?) throws(QueryError) -> SQLFragment {
        guard let access = left.mixed, !access.isType else {
            throw QueryError("@type is compared with a type name, not the key path \(right.name)", at: offset)
        }
        if op == .in || op == .between || op == .like {
            throw QueryError("\(op.rawValue) needs values on its right, not the key path \(right.name)", at: offset)
        }
        let argument: SQLFragment
        if let other = right.mixed {
            guard other.steps.isEmpty, !other.isType else {
                throw QueryError("a mixed value can be compared with another mixed property, not with a path into one (\(right.name))", at: offset)
            }
            argument = right.expression
        } else {
            switch right.type {
            case .scalar(let type): argument = "vk_mixed_of(" + right.expression + SQLFragment(", ?)", [.text(type.rawValue)])
            case .link(let className): argument = "vk_mixed_of(" + right.expression + SQLFragment(", ?)", [.text("link:" + className)])
            }
        }
        return "(vk_mixed_test(" + left.expression + ", \(Self.operation(op).rawValue), \(options.rawValue), " + argument + access.stepArguments + ") = 1)"
    }

    private static func operation(_ op: ComparisonOperator) -> MixedSQLFunctions.Operation {
        switch op {
        case .equal, .in: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        case .like: .like
        case .between: .between
        }
    }

    /// A query constant as a mixed value (its type kept: `true` is a Bool, not 1).
    static func mixedValue(of value: QueryValue, name: String, offset: Int?) throws(QueryError) -> MixedValue {
        switch value {
        case .null: return .none
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d.timeIntervalSinceReferenceDate)
        case .uuid(let u): return .uuid(u)
        case .objectId(let o): return .objectId(o.bytes)
        case .decimal(let d): return .decimal(Decimal128(d))
        case .mixed(let m): return m
        case .object(let reference):
            guard let manager = reference.object.manager else {
                throw QueryError("the \(type(of: reference.object)) compared with \(name) is not managed by a vault (add it first)", at: offset)
            }
            return .link(className: manager.schema.className, rowID: manager.rowID)
        }
    }
}
