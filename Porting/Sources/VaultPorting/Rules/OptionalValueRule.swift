import SwiftSyntax

/// Rule 3, uses of ported `RealmOptional`/`RealmProperty` properties: `x.value` → `x`.
extension LegacyRewriter {
    func rewriteOptionalValueAccess(_ node: MemberAccessExprSyntax) -> ExprSyntax? {
        guard node.declName.baseName.text == "value", node.declName.argumentNames == nil, let base = node.base else { return nil }
        if let call = node.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == node.id { return nil }
        let resolver = ScopeResolver(index: index)
        let proven: Bool
        if let reference = base.as(DeclReferenceExprSyntax.self) {
            // A bare `x.value` inside the model (or an extension of it).
            let name = reference.baseName.text
            guard index.anyOptionalProperty(named: name) else { return nil }
            switch resolver.origin(of: name, at: Syntax(reference)) {
            case let .member(className):
                proven = index.isOptionalProperty(name, of: className)
            case .local, .notFound:
                return nil
            }
        } else if let access = base.as(MemberAccessExprSyntax.self), let receiver = access.base,
                  access.declName.argumentNames == nil {
            let name = access.declName.baseName.text
            guard index.anyOptionalProperty(named: name) else { return nil }
            guard let receiverType = resolver.type(of: receiver) else {
                report(node, "cannot prove that `\(access.trimmedDescription)` is a ported RealmOptional/RealmProperty; remove `.value` by hand if it is")
                return nil
            }
            guard index.classes[receiverType] != nil else {
                report(node, "`\(receiver.trimmedDescription)` has type `\(receiverType)`, not a model declared in the ported files; remove `.value` by hand if `\(name)` is a ported RealmOptional/RealmProperty")
                return nil
            }
            proven = index.isOptionalProperty(name, of: receiverType)
        } else {
            return nil
        }
        guard proven else { return nil }
        guard let visited = super.visit(node).as(MemberAccessExprSyntax.self), let visitedBase = visited.base else { return nil }
        let replacement = visitedBase.with(\.trailingTrivia, visitedBase.trailingTrivia + visited.trailingTrivia)
        recordChange(node, rule: "optional-values", after: replacement.trimmedDescription)
        return replacement
    }
}
