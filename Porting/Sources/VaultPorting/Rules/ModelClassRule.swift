import SwiftSyntax

/// What rule 3 decided for one model class, from its original declaration.
struct ModelClassPlan {
    /// The class declaration's id in the original tree.
    var classID: SyntaxIdentifier
    /// The class name.
    var name: String
    /// Member items to remove (the schema overrides that became attributes).
    var removals: Set<SyntaxIdentifier> = []
    /// The property named by a removed `primaryKey()`.
    var primaryKey: String?
    /// The properties named by a removed `indexedProperties()`.
    var indexed: Set<String> = []
    /// The properties named by a removed `ignoredProperties()`.
    var ignored: Set<String> = []
    /// Set when `ignoredProperties()` could not be read: no property is converted then,
    /// since converting an ignored one would start storing it.
    var keepLegacyProperties = false
}

/// Rule 3, class level: the schema overrides (`primaryKey()`, `indexedProperties()`,
/// `ignoredProperties()`, `className()`) and class attributes.
extension LegacyRewriter {
    func rewriteModelClass(_ node: ClassDeclSyntax) -> DeclSyntax {
        guard index.isModel(node.name.text) else { return super.visit(node) }
        modelContexts.append(plan(for: node))
        let visited = super.visit(node)
        modelContexts.removeLast()
        guard var declaration = visited.as(ClassDeclSyntax.self) else { return visited }
        if let renaming = SyntaxFacts.attribute("objc", in: node.attributes), renaming.arguments != nil {
            report(node, "`@objc(…)` gives the model another class name; port it by hand")
        }
        let leading = declaration.leadingTrivia
        let kept = declaration.attributes.filter { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return true }
            let name = attribute.attributeName.trimmedDescription
            return !(name == "objcMembers" || (name == "objc" && attribute.arguments == nil))
        }
        if kept.count != declaration.attributes.count {
            declaration = declaration.with(\.attributes, kept).with(\.leadingTrivia, leading)
            recordChange(node.attributes, rule: "model-properties", after: kept.trimmedDescription)
        }
        return DeclSyntax(declaration)
    }

    /// Reads the schema overrides of a model class.
    private func plan(for node: ClassDeclSyntax) -> ModelClassPlan {
        var plan = ModelClassPlan(classID: node.id, name: node.name.text)
        var properties: Set<String> = []
        for member in node.memberBlock.members {
            for binding in member.decl.as(VariableDeclSyntax.self)?.bindings ?? [] {
                if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text { properties.insert(name) }
            }
        }
        for member in node.memberBlock.members {
            guard let function = member.decl.as(FunctionDeclSyntax.self), SyntaxFacts.isTypeMethod(function) else { continue }
            let name = function.name.text
            guard ["primaryKey", "indexedProperties", "ignoredProperties", "className"].contains(name) else { continue }
            guard let strings = SyntaxFacts.literalStrings(returnedBy: function) else {
                if name == "className" {
                    report(function, "`className()` does not return a plain literal; VaultKit names a class after its Swift name")
                } else {
                    report(function, "`\(name)()` does not return a plain literal; port it by hand with `@Persisted(…)`")
                    if name == "ignoredProperties" { plan.keepLegacyProperties = true }
                }
                continue
            }
            if name == "className" {
                if strings == [node.name.text] {
                    plan.removals.insert(member.id)
                    recordChange(function, rule: "schema-overrides", after: "")
                } else {
                    report(function, "`className()` renames the class to \(strings.map { "\"\($0)\"" }.joined(separator: ", ")); VaultKit names a class after its Swift name")
                }
                continue
            }
            if let missing = strings.first(where: { !properties.contains($0) }) {
                report(function, "`\(name)()` names `\(missing)`, which is not declared in this class")
                if name == "ignoredProperties" { plan.keepLegacyProperties = true }
                continue
            }
            switch name {
            case "primaryKey":
                guard strings.count <= 1 else { continue }
                plan.primaryKey = strings.first
            case "indexedProperties":
                plan.indexed = Set(strings)
            default:
                plan.ignored = Set(strings)
            }
            plan.removals.insert(member.id)
            recordChange(function, rule: "schema-overrides", after: "")
        }
        return plan
    }

    /// Removes the schema overrides the plan of the enclosing model class replaced.
    func rewriteModelMembers(_ node: MemberBlockItemListSyntax) -> MemberBlockItemListSyntax {
        let visited = super.visit(node)
        guard let plan = modelContexts.last, !plan.removals.isEmpty,
              node.parent?.parent?.id == plan.classID else { return visited }
        var kept: [MemberBlockItemSyntax] = []
        for (original, rewritten) in zip(node, visited) where !plan.removals.contains(original.id) {
            kept.append(rewritten)
        }
        return MemberBlockItemListSyntax(kept)
    }

    /// The plan of the model class whose body directly declares `node`, if any.
    func directModelPlan(of node: some SyntaxProtocol) -> ModelClassPlan? {
        guard let plan = modelContexts.last,
              let item = node.parent?.as(MemberBlockItemSyntax.self),
              item.parent?.parent?.parent?.id == plan.classID else { return nil }
        return plan
    }
}
