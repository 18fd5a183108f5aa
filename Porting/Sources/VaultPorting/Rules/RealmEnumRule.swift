import SwiftSyntax

/// Rule 3: `@objc enum E: Int, RealmEnum` → `enum E: Int, PersistableEnum`.
extension LegacyRewriter {
    func rewriteRealmEnum(_ node: EnumDeclSyntax) -> DeclSyntax {
        let visited = super.visit(node)
        let isRealmEnum = node.inheritanceClause?.inheritedTypes.contains {
            SyntaxFacts.baseTypeName($0.type) == "RealmEnum"
        } ?? false
        guard isRealmEnum, var declaration = visited.as(EnumDeclSyntax.self),
              let objc = SyntaxFacts.attribute("objc", in: declaration.attributes) else { return visited }
        if objc.arguments != nil {
            report(node, "`@objc(…)` on a RealmEnum renames it; port it by hand")
            return visited
        }
        let leading = declaration.leadingTrivia
        let kept = declaration.attributes.filter { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return true }
            return !(attribute.attributeName.trimmedDescription == "objc" && attribute.arguments == nil)
        }
        declaration = declaration.with(\.attributes, kept).with(\.leadingTrivia, leading)
        recordChange(node.attributes, rule: "enums", after: kept.trimmedDescription)
        return DeclSyntax(declaration)
    }
}
