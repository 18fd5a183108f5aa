import SwiftSyntax

/// Rule 1: `import RealmSwift` and `import Realm` become `import VaultKit` (once per file).
extension LegacyRewriter {
    static let legacyModules: Set<String> = ["RealmSwift", "Realm"]

    func rewriteImport(_ node: ImportDeclSyntax) -> DeclSyntax {
        guard let first = node.path.first, Self.legacyModules.contains(first.name.text) else {
            return DeclSyntax(node)
        }
        // `import Realm.Private` and friends have no VaultKit counterpart.
        if first.name.text == "Realm" && node.path.count > 1 && node.importKindSpecifier == nil {
            report(node, "`\(node.path.trimmedDescription)` has no VaultKit counterpart")
            return DeclSyntax(node)
        }
        var components = Array(node.path)
        components[0] = first.with(\.name, first.name.with(\.tokenKind, .identifier("VaultKit")))
        let rewritten = node.with(\.path, ImportPathComponentListSyntax(components))
        recordChange(node, rule: "imports", after: rewritten.trimmedDescription)
        return DeclSyntax(rewritten)
    }

    /// Drops a plain `import VaultKit` that repeats an earlier one (after `import Realm` and
    /// `import RealmSwift` both became `import VaultKit`).
    func dropDuplicateImports(original: CodeBlockItemListSyntax, rewritten: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        var seen = false
        var kept: [CodeBlockItemSyntax] = []
        var dropped = false
        for (before, after) in zip(original, rewritten) {
            if let importDecl = after.item.as(ImportDeclSyntax.self), isPlainVaultKitImport(importDecl) {
                if seen {
                    dropped = true
                    recordChange(before, rule: "imports", after: "")
                    continue
                }
                seen = true
            }
            kept.append(after)
        }
        return dropped ? CodeBlockItemListSyntax(kept) : rewritten
    }

    private func isPlainVaultKitImport(_ node: ImportDeclSyntax) -> Bool {
        node.attributes.isEmpty && node.modifiers.isEmpty && node.importKindSpecifier == nil
            && node.path.count == 1 && node.path.first?.name.text == "VaultKit"
    }
}
