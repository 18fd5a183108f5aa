import SwiftSyntax

/// What a name refers to at a use site, as far as syntax alone can prove.
enum NameOrigin: Equatable {
    /// A local variable or parameter; its declared type when it is written down.
    case local(type: String?)
    /// A property of the enclosing class (or extension) `className`.
    case member(className: String)
    /// No declaration found in the enclosing scopes of this file.
    case notFound
}

/// Resolves names and the static types of simple expressions by walking up the original
/// tree: a deliberately small, conservative subset of Swift's name lookup. Whenever a
/// pattern it does not model could bind the name, it answers "unknown" instead of guessing.
struct ScopeResolver {
    let index: ModelIndex

    /// The declared class name of `expression`, or `nil` when it cannot be proved.
    func type(of expression: ExprSyntax) -> String? {
        if let optional = expression.as(OptionalChainingExprSyntax.self) { return type(of: optional.expression) }
        if let forced = expression.as(ForceUnwrapExprSyntax.self) { return type(of: forced.expression) }
        if let tuple = expression.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
           only.label == nil {
            return type(of: only.expression)
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            if reference.baseName.tokenKind == .keyword(.self) { return SyntaxFacts.enclosingTypeName(of: reference) }
            switch origin(of: reference.baseName.text, at: Syntax(reference)) {
            case let .local(type): return type
            case let .member(className): return index.propertyType(reference.baseName.text, in: className)
            case .notFound: return nil
            }
        }
        if let access = expression.as(MemberAccessExprSyntax.self), let base = access.base,
           access.declName.argumentNames == nil, let baseType = type(of: base) {
            return index.propertyType(access.declName.baseName.text, in: baseType)
        }
        if let call = expression.as(FunctionCallExprSyntax.self),
           let callee = call.calledExpression.as(DeclReferenceExprSyntax.self), index.classes[callee.baseName.text] != nil {
            return callee.baseName.text
        }
        return nil
    }

    /// Where `name`, used at `site`, is declared.
    func origin(of name: String, at site: Syntax) -> NameOrigin {
        var child = site
        while let parent = child.parent {
            if let items = parent.as(CodeBlockItemListSyntax.self) {
                for item in items {
                    if item.id == child.id { break }
                    if let found = declaredLocal(name, in: item) { return found }
                }
            } else if let function = parent.as(FunctionDeclSyntax.self) {
                if let found = parameter(name, in: function.signature.parameterClause.parameters) { return found }
            } else if let initializer = parent.as(InitializerDeclSyntax.self) {
                if let found = parameter(name, in: initializer.signature.parameterClause.parameters) { return found }
            } else if let closure = parent.as(ClosureExprSyntax.self) {
                if let signature = closure.signature, binds(name, in: Syntax(signature)) {
                    if case let .parameterClause(clause) = signature.parameterClause,
                       let typed = clause.parameters.first(where: {
                           ($0.secondName ?? $0.firstName).text == name
                       }), let type = typed.type {
                        return .local(type: SyntaxFacts.baseTypeName(type))
                    }
                    return .local(type: nil)
                }
            } else if let accessor = parent.as(AccessorDeclSyntax.self) {
                if name == "newValue" || name == "oldValue" || (accessor.parameters.map { binds(name, in: Syntax($0)) } ?? false) {
                    return .local(type: nil)
                }
            } else if parent.is(MemberBlockSyntax.self), let owner = parent.parent {
                let className: String?
                if let declaration = owner.as(ClassDeclSyntax.self) { className = declaration.name.text }
                else if let declaration = owner.as(ExtensionDeclSyntax.self) { className = SyntaxFacts.baseTypeName(declaration.extendedType) }
                else { className = nil }
                if let className, index.hasProperty(name, in: className) { return .member(className: className) }
                if className == nil, binds(name, in: parent) { return .local(type: nil) }
            } else if let loop = parent.as(ForStmtSyntax.self), child.id == loop.body.id, binds(name, in: Syntax(loop.pattern)) {
                // `for x: T in …` declares its type; `for x in …` does not.
                let typed = loop.pattern.is(IdentifierPatternSyntax.self) ? loop.typeAnnotation.map { SyntaxFacts.baseTypeName($0.type) } : nil
                return .local(type: typed)
            } else if let header = bindingHeader(of: parent, enclosing: child), binds(name, in: header) {
                return .local(type: nil)
            }
            child = parent
        }
        return .notFound
    }

    /// Parts of statements that bind names for the code they enclose: `for x in`, `if let x`,
    /// `guard let x` (in the following statements), `case let x`, `catch let x`.
    private func bindingHeader(of parent: Syntax, enclosing child: Syntax) -> Syntax? {
        if let branch = parent.as(IfExprSyntax.self), child.id == branch.body.id { return Syntax(branch.conditions) }
        if let loop = parent.as(WhileStmtSyntax.self), child.id == loop.body.id { return Syntax(loop.conditions) }
        if let switchCase = parent.as(SwitchCaseSyntax.self) { return Syntax(switchCase.label) }
        if let clause = parent.as(CatchClauseSyntax.self) {
            return clause.catchItems.isEmpty ? nil : Syntax(clause.catchItems)
        }
        return nil
    }

    private func parameter(_ name: String, in parameters: FunctionParameterListSyntax) -> NameOrigin? {
        for parameter in parameters where (parameter.secondName ?? parameter.firstName).text == name {
            return .local(type: SyntaxFacts.baseTypeName(parameter.type))
        }
        return nil
    }

    /// A declaration of `name` by a statement that precedes the use site in the same block.
    private func declaredLocal(_ name: String, in item: CodeBlockItemSyntax) -> NameOrigin? {
        if let variable = item.item.as(VariableDeclSyntax.self) {
            for binding in variable.bindings where binds(name, in: Syntax(binding.pattern)) {
                guard binding.pattern.is(IdentifierPatternSyntax.self) else { return .local(type: nil) }
                if let annotation = binding.typeAnnotation { return .local(type: SyntaxFacts.baseTypeName(annotation.type)) }
                if let value = binding.initializer?.value { return .local(type: type(of: value)) }
                return .local(type: nil)
            }
        }
        if let guardStatement = item.item.as(GuardStmtSyntax.self), binds(name, in: Syntax(guardStatement.conditions)) {
            return .local(type: nil)
        }
        if let function = item.item.as(FunctionDeclSyntax.self), function.name.text == name { return .local(type: nil) }
        return nil
    }

    /// Whether an identifier pattern (or closure parameter) inside `node` binds `name`.
    func binds(_ name: String, in node: Syntax) -> Bool {
        for token in node.tokens(viewMode: .sourceAccurate) where token.text == name {
            guard let parent = token.parent else { continue }
            if parent.is(IdentifierPatternSyntax.self) || parent.is(ClosureShorthandParameterSyntax.self)
                || parent.is(ClosureParameterSyntax.self) || parent.is(OptionalBindingConditionSyntax.self) {
                return true
            }
        }
        return false
    }
}
