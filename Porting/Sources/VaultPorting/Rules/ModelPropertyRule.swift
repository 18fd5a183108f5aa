import SwiftSyntax
import SwiftParser

/// Rule 3, property level: legacy stored properties of a model become `@Persisted` ones.
extension LegacyRewriter {
    /// How one legacy property declaration is ported.
    private enum PropertyPort {
        /// `@objc dynamic var` (the binding is kept, `= nil` dropped for an optional).
        case dynamicVar
        /// `let x = List<T>()` and friends: the type text of the new annotation.
        case collection(type: String)
        /// `RealmOptional<T>()` / `RealmProperty<T>()`.
        case optionalWrapper(type: String)
        /// `LinkingObjects(fromType:property:)`.
        case linkingObjects(type: String, origin: String)
    }

    private enum Decision {
        case leave
        case report(String)
        case port(PropertyPort)
        /// An already-modern `@Persisted` property that gains `primaryKey`/`indexed`.
        case upgradeAttribute
        /// An ignored `@objc dynamic var`: stays a plain stored property.
        case stripObjC
    }

    func rewriteModelProperty(_ node: VariableDeclSyntax) -> DeclSyntax {
        guard let plan = directModelPlan(of: node) else { return super.visit(node) }
        let decision = decide(node, plan: plan)
        switch decision {
        case .leave:
            return super.visit(node)
        case let .report(reason):
            report(node, reason)
            insideConvertedProperty += 1
            defer { insideConvertedProperty -= 1 }
            return super.visit(node)
        case .upgradeAttribute, .stripObjC, .port:
            break
        }
        insideConvertedProperty += 1
        let visitedDecl = super.visit(node)
        insideConvertedProperty -= 1
        guard let visited = visitedDecl.as(VariableDeclSyntax.self), let binding = visited.bindings.first,
              let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return visitedDecl }
        var arguments: [String] = []
        if plan.primaryKey == name { arguments.append("primaryKey: true") } else if plan.indexed.contains(name) { arguments.append("indexed: true") }

        let result: VariableDeclSyntax?
        switch decision {
        case .upgradeAttribute:
            result = replacingPersisted(in: visited, arguments: arguments)
        case .stripObjC:
            result = strippingLegacyAttributes(visited, persisted: nil)
        case let .port(kind):
            var newBinding = binding
            switch kind {
            case .dynamicVar:
                if let annotation = binding.typeAnnotation, annotation.type.is(OptionalTypeSyntax.self),
                   binding.initializer?.value.is(NilLiteralExprSyntax.self) == true {
                    newBinding = binding.with(\.initializer, nil).with(\.trailingTrivia, binding.trailingTrivia)
                }
            case let .collection(type):
                newBinding = annotated(binding, type: binding.typeAnnotation?.type.trimmedDescription ?? type)
            case let .optionalWrapper(type):
                newBinding = annotated(binding, type: type)
            case let .linkingObjects(type, origin):
                arguments = ["originProperty: \"\(origin)\""]
                newBinding = annotated(binding, type: type)
            }
            let withBinding = visited.with(\.bindings, PatternBindingListSyntax([newBinding]))
                .with(\.bindingSpecifier, visited.bindingSpecifier.with(\.tokenKind, .keyword(.var)))
            result = strippingLegacyAttributes(withBinding, persisted: arguments)
        case .leave, .report:
            result = nil
        }
        guard let result else {
            report(node, "could not build the ported declaration")
            return visitedDecl
        }
        recordChange(node, rule: "model-properties", after: result.trimmedDescription)
        return DeclSyntax(result)
    }

    /// Decides, from the original declaration, how a member of a model class is ported.
    private func decide(_ node: VariableDeclSyntax, plan: ModelClassPlan) -> Decision {
        if node.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { return .leave }
        let objc = SyntaxFacts.attribute("objc", in: node.attributes)
        let isDynamic = node.modifiers.contains { $0.name.text == "dynamic" }
        let persisted = SyntaxFacts.attribute("Persisted", in: node.attributes)
        guard let binding = node.bindings.first,
              let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else {
            return isDynamic ? .report("a destructuring property declaration cannot be ported") : .leave
        }
        if let persisted {
            let wantsArguments = plan.primaryKey == name || plan.indexed.contains(name)
            return wantsArguments && persisted.arguments == nil ? .upgradeAttribute : .leave
        }
        if isDynamic || objc != nil {
            guard isDynamic else { return .leave }
            if binding.accessorBlock != nil { return .leave }
            if let objc, objc.arguments != nil {
                return .report("`@objc(…)` gives the stored property another name; port it by hand (propertiesMapping)")
            }
            if node.bindings.count > 1 { return .report("several properties in one declaration; split them first") }
            if plan.ignored.contains(name) { return .stripObjC }
            if plan.keepLegacyProperties { return .leave }
            return .port(.dynamicVar)
        }
        guard let call = binding.initializer?.value.as(FunctionCallExprSyntax.self) else { return .leave }
        let wrapper = SyntaxFacts.genericCallee(call)
        let calleeName = wrapper?.name ?? call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text
        guard let calleeName, ["List", "MutableSet", "Map", "RealmOptional", "RealmProperty", "LinkingObjects"].contains(calleeName) else {
            return .leave
        }
        if plan.ignored.contains(name) || plan.keepLegacyProperties { return .leave }
        if node.bindings.count > 1 { return .report("several properties in one declaration; split them first") }
        switch calleeName {
        case "LinkingObjects":
            let arguments = Array(call.arguments)
            guard arguments.count == 2, arguments[0].label?.text == "fromType", arguments[1].label?.text == "property",
                  let typeAccess = arguments[0].expression.as(MemberAccessExprSyntax.self),
                  typeAccess.declName.baseName.text == "self", let origin = typeAccess.base,
                  let property = SyntaxFacts.plainString(arguments[1].expression) else {
                return .report("`LinkingObjects` needs `fromType: T.self, property: \"name\"` literals to be ported")
            }
            return .port(.linkingObjects(type: "LinkingObjects<\(origin.trimmedDescription)>", origin: property))
        case "RealmOptional", "RealmProperty":
            guard let wrapper, wrapper.arguments.count == 1, let argument = wrapper.arguments.first, call.arguments.isEmpty,
                  call.trailingClosure == nil else {
                // With an initial value it stays a wrapper, renamed (VaultOptional/VaultProperty keep Realm's meaning).
                return .leave
            }
            let valueType = renamedTypeText(argument)
            return .port(.optionalWrapper(type: calleeName == "RealmOptional" ? "\(valueType)?" : valueType))
        default:
            guard let wrapper, call.arguments.isEmpty, call.trailingClosure == nil else {
                return .report("`\(calleeName)` created with arguments cannot be ported")
            }
            let arguments = wrapper.arguments.map { renamedTypeText($0) }.joined(separator: ", ")
            return .port(.collection(type: "\(calleeName)<\(arguments)>"))
        }
    }

    /// The text of a type after rule 2's renames (`AnyRealmValue` → `AnyVaultValue`).
    private func renamedTypeText(_ type: TypeSyntax) -> String {
        var text = ""
        for token in type.tokens(viewMode: .sourceAccurate) {
            if case .identifier(let name) = token.tokenKind, let newName = Self.typeRenames[name] {
                text += newName
            } else {
                text += token.text
            }
        }
        return text
    }

    /// `name = Wrapper()` → `name: type` (keeping the binding's trailing comment).
    private func annotated(_ binding: PatternBindingSyntax, type: String) -> PatternBindingSyntax {
        var parser = Parser(type)
        let parsedType = TypeSyntax.parse(from: &parser)
        let annotation = TypeAnnotationSyntax(colon: .colonToken(trailingTrivia: .space), type: parsedType)
        return binding
            .with(\.pattern, binding.pattern.with(\.trailingTrivia, []))
            .with(\.typeAnnotation, annotation)
            .with(\.initializer, nil)
            .with(\.trailingTrivia, binding.trailingTrivia)
    }

    /// Drops `@objc` and `dynamic`; puts `@Persisted(arguments)` first when `persisted` is given.
    private func strippingLegacyAttributes(_ decl: VariableDeclSyntax, persisted: [String]?) -> VariableDeclSyntax? {
        let leading = decl.leadingTrivia
        // Clear the leading trivia first: the token that starts the result may change.
        let decl = decl.with(\.leadingTrivia, [])
        var attributes: [AttributeListSyntax.Element] = decl.attributes.filter { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return true }
            return !(attribute.attributeName.trimmedDescription == "objc" && attribute.arguments == nil)
        }
        if let persisted {
            guard let attribute = persistedAttribute(persisted) else { return nil }
            attributes.insert(.attribute(attribute), at: 0)
        }
        var modifiers = decl.modifiers.filter { $0.name.text != "dynamic" }
        var specifier = decl.bindingSpecifier
        if !attributes.isEmpty || !modifiers.isEmpty {
            // The removed `@objc`/`dynamic` may have carried the line break before the declaration.
            specifier = specifier.with(\.leadingTrivia, [])
            if !attributes.isEmpty, let first = modifiers.first {
                modifiers = modifiers.with(\.[modifiers.startIndex], first.with(\.leadingTrivia, []))
            }
        }
        return decl
            .with(\.bindingSpecifier, specifier)
            .with(\.attributes, AttributeListSyntax(attributes))
            .with(\.modifiers, modifiers)
            .with(\.leadingTrivia, leading)
    }

    /// Replaces a bare `@Persisted` with `@Persisted(arguments)`.
    private func replacingPersisted(in decl: VariableDeclSyntax, arguments: [String]) -> VariableDeclSyntax? {
        guard let attribute = persistedAttribute(arguments) else { return nil }
        let leading = decl.leadingTrivia
        let attributes = decl.attributes.map { element -> AttributeListSyntax.Element in
            guard let existing = element.as(AttributeSyntax.self), existing.attributeName.trimmedDescription == "Persisted" else { return element }
            return .attribute(attribute.with(\.trailingTrivia, existing.trailingTrivia))
        }
        return decl.with(\.attributes, AttributeListSyntax(attributes)).with(\.leadingTrivia, leading)
    }

    /// `@Persisted` or `@Persisted(arguments)`, built by SwiftParser.
    private func persistedAttribute(_ arguments: [String]) -> AttributeSyntax? {
        let text = arguments.isEmpty ? "@Persisted var x = 0" : "@Persisted(\(arguments.joined(separator: ", "))) var x = 0"
        let decl = parseDecl(text, as: VariableDeclSyntax.self, leading: [], trailing: [])
        return decl?.attributes.first?.as(AttributeSyntax.self)?.with(\.trailingTrivia, .space)
    }
}
