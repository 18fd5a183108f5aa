import SwiftSyntax

/// Rule 4: RealmSwift APIs that VaultKit has in another shape, or not at all,
/// are left as written with a `// vault port:` note saying what to use — so a
/// ported app's remaining compile errors each come with their answer.
///
/// - Realm's SwiftUI property wrappers (`@ObservedResults`, `@ObservedRealmObject`,
///   `@ObservedSectionedResults`, `@AsyncOpen`, `@AutoOpen`);
/// - the SwiftUI environment values `\.realm` and `\.realmConfiguration`;
/// - Atlas App Services and Device Sync (`App(id:)`, `user.flexibleSyncConfiguration()`,
///   `user.configuration(partitionValue:)`),
///   which ended with Realm: VaultSync syncs through the app's own server.
///
/// Only exact uses are matched (an `App` type conformance, a `user` variable or
/// an app's own `realm` key path are not Realm's).
extension LegacyRewriter {
    static let swiftUIWrapperNotes: [String: String] = [
        "ObservedResults": "`@ObservedResults` has no VaultKit wrapper: managed objects and results are `Observable` (Vault.Configuration.observationTracking); keep the results in a `@State` or an `@Observable` model",
        "ObservedSectionedResults": "`@ObservedSectionedResults` has no VaultKit wrapper: keep `results.sectioned(by:)` in a `@State` or an `@Observable` model (Vault.Configuration.observationTracking)",
        "ObservedRealmObject": "`@ObservedRealmObject` has no VaultKit wrapper: managed objects are `Observable` (Vault.Configuration.observationTracking); use `@Bindable` or pass the object",
        "AsyncOpen": "`@AsyncOpen` has no VaultKit wrapper: open with `try await Vault(configuration:)` in a `.task`",
        "AutoOpen": "`@AutoOpen` has no VaultKit wrapper: open with `try await Vault(configuration:)` in a `.task`",
    ]

    static let syncNote = "Atlas App Services and Device Sync ended with Realm: VaultSync syncs end-to-end encrypted through your own server (`Vault.Configuration.sync`; see VaultSync's documentation)"

    /// Realm's SwiftUI property wrappers.
    func noteUnsupportedAttribute(_ node: AttributeSyntax) {
        let name = SyntaxFacts.baseTypeName(node.attributeName)
        if let note = Self.swiftUIWrapperNotes[name] { report(node, note) }
    }

    /// `App(id:)` and `….flexibleSyncConfiguration(…)`.
    func noteUnsupportedCall(_ node: FunctionCallExprSyntax) {
        if let callee = node.calledExpression.as(DeclReferenceExprSyntax.self), callee.baseName.text == "App",
           node.arguments.first?.label?.text == "id" {
            report(node, Self.syncNote)
        } else if let member = node.calledExpression.as(MemberAccessExprSyntax.self),
                  ["flexibleSyncConfiguration", "configuration"].contains(member.declName.baseName.text),
                  member.declName.baseName.text == "flexibleSyncConfiguration" || node.arguments.first?.label?.text == "partitionValue" {
            report(node, Self.syncNote)
        }
    }

    /// `.environment(\.realm, …)`, `@Environment(\.realmConfiguration)` and the like.
    func noteUnsupportedKeyPath(_ node: KeyPathExprSyntax) {
        guard node.root == nil, node.components.count == 1,
              let component = node.components.first?.component.as(KeyPathPropertyComponentSyntax.self),
              ["realm", "realmConfiguration"].contains(component.declName.baseName.text) else { return }
        // The key path is an argument of `.environment(…)` or `@Environment(…)`: argument, list, call or attribute.
        let holder = node.parent?.parent?.parent
        let inEnvironmentCall = holder?.as(FunctionCallExprSyntax.self)?.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "environment"
        let inEnvironmentAttribute = holder?.as(AttributeSyntax.self).map { SyntaxFacts.baseTypeName($0.attributeName) == "Environment" } ?? false
        guard inEnvironmentCall || inEnvironmentAttribute else { return }
        report(node, "SwiftUI's `\\.\(component.declName.baseName.text)` environment value is Realm's: pass the vault or its configuration to the view, or keep it in an `@Observable` model")
    }
}
