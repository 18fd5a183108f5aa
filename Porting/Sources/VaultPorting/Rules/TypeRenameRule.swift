import SwiftSyntax

/// Rule 2: RealmSwift's type names become VaultKit's, only where the exact name is used.
extension LegacyRewriter {
    /// Exact RealmSwift names and their VaultKit names.
    static let typeRenames: [String: String] = [
        "Realm": "Vault",
        "RealmSwift": "VaultKit",
        "RealmCollection": "VaultCollection",
        "AnyRealmCollection": "AnyVaultCollection",
        "AnyRealmValue": "AnyVaultValue",
        "RealmCollectionChange": "VaultCollectionChange",
        "RealmEnum": "PersistableEnum",
        "RealmPublishers": "VaultPublishers",
        "RealmKeyedCollection": "VaultKeyedCollection",
        "RealmMapChange": "VaultMapChange",
        // Protocols generic code constrains to (VaultKit's GenericConstraints.swift).
        "RealmCollectionValue": "VaultCollectionValue",
        "RealmFetchable": "VaultFetchable",
        "RealmCollectionBase": "VaultCollectionBase",
        "RealmSectionedResult": "VaultSectionedResult",
        "RealmSectionedResultsChange": "SectionedResultsChange",
        "RealmOptionalType": "VaultOptionalType",
        "RealmPropertyType": "VaultPropertyType",
        "RealmSubscribable": "VaultSubscribable",
    ]

    /// Members of `Realm` that are top-level types in VaultKit.
    static let memberTypeRenames: [String: String] = [
        "UpdatePolicy": "UpdatePolicy",
        "Notification": "VaultNotification",
    ]

    /// Renamed members and argument labels.
    static let memberRenames: [String: String] = [
        "deleteRealmIfMigrationNeeded": "deleteVaultIfMigrationNeeded",
    ]

    /// Legacy wrappers: a model property declared with one becomes `@Persisted`
    /// (the model-property rule); any other mention keeps the wrapper under
    /// VaultKit's name, which has Realm's meaning (`value`, unmanaged storage).
    static let legacyWrappers: [String: String] = ["RealmOptional": "VaultOptional", "RealmProperty": "VaultProperty"]

    private func renamed(_ token: TokenSyntax, to name: String) -> TokenSyntax {
        token.with(\.tokenKind, .identifier(name))
    }

    func renameIdentifierType(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        guard let visited = super.visit(node).as(IdentifierTypeSyntax.self) else { return super.visit(node) }
        let name = node.name.text
        if let newName = Self.typeRenames[name] {
            recordChange(node.name, rule: "type-renames", after: newName)
            return TypeSyntax(visited.with(\.name, renamed(visited.name, to: newName)))
        }
        if let newName = Self.legacyWrappers[name], insideConvertedProperty == 0 {
            recordChange(node.name, rule: "type-renames", after: newName)
            return TypeSyntax(visited.with(\.name, renamed(visited.name, to: newName)))
        }
        return TypeSyntax(visited)
    }

    func renameMemberType(_ node: MemberTypeSyntax) -> TypeSyntax {
        // `Realm.Error` becomes `Vault.Error` (Realm's codes) through the rename of `Realm` below.
        // `Realm.UpdatePolicy` → `UpdatePolicy`, `Realm.Notification` → `VaultNotification`.
        if let base = node.baseType.as(IdentifierTypeSyntax.self), base.name.text == "Realm", base.genericArgumentClause == nil,
           let newName = Self.memberTypeRenames[node.name.text] {
            recordChange(node, rule: "type-renames", after: newName)
            let type = IdentifierTypeSyntax(name: .identifier(newName), genericArgumentClause: node.genericArgumentClause)
            return TypeSyntax(type.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia))
        }
        guard let visited = super.visit(node).as(MemberTypeSyntax.self) else { return super.visit(node) }
        // `RealmSwift.Realm` → `VaultKit.Vault`: a member of the module qualifier.
        if let base = node.baseType.as(IdentifierTypeSyntax.self), base.name.text == "RealmSwift",
           let newName = Self.typeRenames[node.name.text], node.name.text != "RealmSwift" {
            recordChange(node.name, rule: "type-renames", after: newName)
            return TypeSyntax(visited.with(\.name, renamed(visited.name, to: newName)))
        }
        return TypeSyntax(visited)
    }

    func renameDeclReference(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        let name = node.baseName.text
        // A member name (`x.Realm`) is renamed only after the module qualifier.
        if let access = node.parent?.as(MemberAccessExprSyntax.self), access.declName.id == node.id {
            let base = access.base?.as(DeclReferenceExprSyntax.self)?.baseName.text
            if let newName = Self.memberRenames[name] {
                recordChange(node, rule: "type-renames", after: newName)
                return ExprSyntax(node.with(\.baseName, renamed(node.baseName, to: newName)))
            }
            if base == "RealmSwift", let newName = Self.typeRenames[name] {
                recordChange(node, rule: "type-renames", after: newName)
                return ExprSyntax(node.with(\.baseName, renamed(node.baseName, to: newName)))
            }
            return ExprSyntax(node)
        }
        if let newName = Self.typeRenames[name] {
            recordChange(node, rule: "type-renames", after: newName)
            return ExprSyntax(node.with(\.baseName, renamed(node.baseName, to: newName)))
        }
        if let newName = Self.legacyWrappers[name], insideConvertedProperty == 0 {
            recordChange(node, rule: "type-renames", after: newName)
            return ExprSyntax(node.with(\.baseName, renamed(node.baseName, to: newName)))
        }
        return ExprSyntax(node)
    }

    func renameMemberAccess(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        // `Realm.Error.fileNotFound` becomes `Vault.Error.fileNotFound` through the rename of `Realm`.
        if let base = node.base?.as(DeclReferenceExprSyntax.self), base.baseName.text == "Realm",
           let newName = Self.memberTypeRenames[node.declName.baseName.text], node.declName.argumentNames == nil {
            recordChange(node, rule: "type-renames", after: newName)
            let reference = DeclReferenceExprSyntax(baseName: .identifier(newName))
            return ExprSyntax(reference.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia))
        }
        return super.visit(node)
    }

    func renameArgumentLabel(_ node: LabeledExprSyntax) -> LabeledExprSyntax {
        let visited = super.visit(node)
        guard let label = node.label, let newName = Self.memberRenames[label.text] else { return visited }
        recordChange(label, rule: "type-renames", after: newName)
        return visited.with(\.label, renamed(label, to: newName))
    }
}
