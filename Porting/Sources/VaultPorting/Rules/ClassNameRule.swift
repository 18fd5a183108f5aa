import SwiftSyntax

/// Rule 3: `Dog.className()` → `String(describing: Dog.self)`.
extension LegacyRewriter {
    func rewriteClassNameCall(_ node: FunctionCallExprSyntax) -> ExprSyntax? {
        guard let callee = node.calledExpression.as(MemberAccessExprSyntax.self),
              callee.declName.baseName.text == "className", node.arguments.isEmpty, node.trailingClosure == nil,
              let base = callee.base else { return nil }
        let typeText: String
        if let reference = base.as(DeclReferenceExprSyntax.self), index.isModel(reference.baseName.text) {
            guard index.classNameIsOwnName(reference.baseName.text) else {
                report(node, "`\(reference.baseName.text)` overrides `className()`; VaultKit names a class after its Swift name")
                return nil
            }
            typeText = "\(reference.baseName.text).self"
        } else if let typeCall = base.as(FunctionCallExprSyntax.self),
                  typeCall.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text == "type",
                  typeCall.arguments.count == 1, typeCall.arguments.first?.label?.text == "of",
                  let argument = typeCall.arguments.first?.expression,
                  let staticType = ScopeResolver(index: index).type(of: argument), index.isModel(staticType),
                  !index.classes.values.contains(where: { $0.overridesClassName }) {
            typeText = typeCall.trimmedDescription
        } else {
            return nil
        }
        guard let replacement = parseExpr("String(describing: \(typeText))", leading: node.leadingTrivia, trailing: node.trailingTrivia) else {
            return nil
        }
        recordChange(node, rule: "class-names", after: replacement.trimmedDescription)
        return replacement
    }
}
