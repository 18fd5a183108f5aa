import SwiftSyntax

/// Small, purely syntactic questions about nodes, shared by the rules.
enum SyntaxFacts {
    /// The base name of a type: `Dog` for `Dog`, `Dog?`, `Dog!`, `RealmSwift.Dog` and `List<Dog>` gives `List`.
    static func baseTypeName(_ type: TypeSyntax) -> String {
        if let optional = type.as(OptionalTypeSyntax.self) { return baseTypeName(optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return baseTypeName(unwrapped.wrappedType) }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) {
            if let base = member.baseType.as(IdentifierTypeSyntax.self), ["RealmSwift", "VaultKit"].contains(base.name.text) {
                return member.name.text
            }
            return member.trimmedDescription
        }
        return type.trimmedDescription
    }

    /// The declared type name of a binding: its annotation, or `C` for an initializer `C(…)`.
    static func declaredTypeName(of binding: PatternBindingSyntax) -> String? {
        if let annotation = binding.typeAnnotation { return baseTypeName(annotation.type) }
        if let call = binding.initializer?.value.as(FunctionCallExprSyntax.self),
           let callee = call.calledExpression.as(DeclReferenceExprSyntax.self),
           callee.baseName.text.first?.isUppercase == true {
            return callee.baseName.text
        }
        return nil
    }

    /// The callee of a call such as `List<Dog>()`: its name and generic argument types.
    static func genericCallee(_ call: FunctionCallExprSyntax) -> (name: String, arguments: [TypeSyntax])? {
        guard let specialized = call.calledExpression.as(GenericSpecializationExprSyntax.self) else { return nil }
        var name: String?
        if let reference = specialized.expression.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
        } else if let member = specialized.expression.as(MemberAccessExprSyntax.self),
                  let module = member.base?.as(DeclReferenceExprSyntax.self),
                  ["RealmSwift", "VaultKit"].contains(module.baseName.text) {
            name = member.declName.baseName.text
        }
        guard let name else { return nil }
        let arguments = specialized.genericArgumentClause.arguments.compactMap { argument -> TypeSyntax? in
            Syntax(argument.argument).as(TypeSyntax.self)
        }
        return (name, arguments)
    }

    /// Whether a function is `class func`/`static func` with no parameters.
    static func isTypeMethod(_ function: FunctionDeclSyntax) -> Bool {
        function.modifiers.contains { ["class", "static"].contains($0.name.text) }
            && function.signature.parameterClause.parameters.isEmpty
    }

    /// The strings a function returns when its body is one plain literal: `"id"`, `["a", "b"]`,
    /// `[]` or `nil` (given as no strings), with or without `return`. `nil` for anything else.
    static func literalStrings(returnedBy function: FunctionDeclSyntax) -> [String]? {
        guard let body = function.body, body.statements.count == 1, let item = body.statements.first else { return nil }
        let expression: ExprSyntax
        if let returned = item.item.as(ReturnStmtSyntax.self) {
            guard let value = returned.expression else { return nil }
            expression = value
        } else if let value = item.item.as(ExprSyntax.self) {
            expression = value
        } else {
            return nil
        }
        if expression.is(NilLiteralExprSyntax.self) { return [] }
        if let string = plainString(expression) { return [string] }
        if let array = expression.as(ArrayExprSyntax.self) {
            var strings: [String] = []
            for element in array.elements {
                guard let string = plainString(element.expression) else { return nil }
                strings.append(string)
            }
            return strings
        }
        return nil
    }

    /// The value of a string literal without interpolation, or `nil`.
    static func plainString(_ expression: ExprSyntax) -> String? {
        guard let literal = expression.as(StringLiteralExprSyntax.self), literal.openingPounds == nil else { return nil }
        var text = ""
        for segment in literal.segments {
            guard let plain = segment.as(StringSegmentSyntax.self) else { return nil }
            if plain.content.text.contains("\\") { return nil }
            text += plain.content.text
        }
        return text
    }

    /// The attribute named `name` (`objc`, `Persisted`), when a declaration has it.
    static func attribute(_ name: String, in attributes: AttributeListSyntax) -> AttributeSyntax? {
        for element in attributes {
            if let attribute = element.as(AttributeSyntax.self), attribute.attributeName.trimmedDescription == name {
                return attribute
            }
        }
        return nil
    }

    /// The nearest enclosing class or extension of `node`, by name (`extension Dog` gives `Dog`).
    static func enclosingTypeName(of node: some SyntaxProtocol) -> String? {
        var current = node.parent
        while let candidate = current {
            if let declaration = candidate.as(ClassDeclSyntax.self) { return declaration.name.text }
            if let declaration = candidate.as(ExtensionDeclSyntax.self) { return baseTypeName(declaration.extendedType) }
            if candidate.is(StructDeclSyntax.self) || candidate.is(EnumDeclSyntax.self)
                || candidate.is(ActorDeclSyntax.self) || candidate.is(ProtocolDeclSyntax.self) {
                return nil
            }
            current = candidate.parent
        }
        return nil
    }

    /// The innermost statement or member declaration that holds `node`: where a
    /// `// vault port:` comment goes.
    static func anchor(of node: some SyntaxProtocol) -> Syntax? {
        var current: Syntax? = Syntax(node)
        while let candidate = current {
            if candidate.is(CodeBlockItemSyntax.self) || candidate.is(MemberBlockItemSyntax.self) { return candidate }
            current = candidate.parent
        }
        return nil
    }
}
