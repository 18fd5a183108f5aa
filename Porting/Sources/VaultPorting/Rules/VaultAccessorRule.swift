import SwiftSyntax

/// Rule 2, members: `object.realm` and `results.realm` become `.vault` where the receiver's
/// declared type is provably a model or one of RealmSwift's collections.
extension LegacyRewriter {
    /// Types whose `realm` property VaultKit calls `vault`.
    static let typesWithVaultAccessor: Set<String> = [
        "Results", "List", "MutableSet", "Map", "LinkingObjects", "AnyRealmCollection", "AnyVaultCollection",
        "Object", "EmbeddedObject", "AsymmetricObject", "SectionedResults", "ResultsSection", "Projection",
    ]

    func rewriteVaultAccessor(_ node: MemberAccessExprSyntax) -> ExprSyntax? {
        guard node.declName.baseName.text == "realm", node.declName.argumentNames == nil, let base = node.base,
              let type = ScopeResolver(index: index).type(of: base) else { return nil }
        let isModel = index.isModel(type) && !index.hasProperty("realm", in: type)
        guard isModel || (Self.typesWithVaultAccessor.contains(type) && index.classes[type] == nil) else { return nil }
        guard let visited = super.visit(node).as(MemberAccessExprSyntax.self) else { return nil }
        let renamed = visited.declName.with(\.baseName, visited.declName.baseName.with(\.tokenKind, .identifier("vault")))
        let replacement = ExprSyntax(visited.with(\.declName, renamed))
        recordChange(node, rule: "type-renames", after: replacement.trimmedDescription)
        return replacement
    }
}
