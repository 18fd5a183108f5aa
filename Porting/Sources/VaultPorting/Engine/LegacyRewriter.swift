import SwiftSyntax
import SwiftParser

/// The one `SyntaxRewriter` that ports a file; each rule lives in an extension under `Rules/`.
///
/// Every `visit` receives the node of the *original* tree (children are rewritten by
/// `super.visit`), so decisions and line numbers always refer to the source as written.
final class LegacyRewriter: SyntaxRewriter {
    let file: String
    let index: ModelIndex
    let converter: SourceLocationConverter

    private(set) var changes: [PortChange] = []
    private(set) var notPortable: [NotPortable] = []
    /// `// vault port:` reasons to insert above the statement or member with this id.
    private var pendingNotes: [SyntaxIdentifier: [String]] = [:]
    private var reported: Set<String> = []

    /// The model classes being rewritten, innermost last.
    var modelContexts: [ModelClassPlan] = []
    /// Set while the children of a model property that is being converted are visited.
    var insideConvertedProperty = 0

    init(file: String, tree: SourceFileSyntax, index: ModelIndex) {
        self.file = file
        self.index = index
        self.converter = SourceLocationConverter(fileName: file, tree: tree)
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: Recording

    /// The 1-based line where `node` starts (after its leading trivia).
    func line(of node: some SyntaxProtocol) -> Int {
        converter.location(for: node.positionAfterSkippingLeadingTrivia).line
    }

    /// Records a rewrite of `node` (an original node) into `replacement`.
    func recordChange(_ node: some SyntaxProtocol, rule: String, after replacement: String) {
        changes.append(PortChange(file: file, line: line(of: node), rule: rule,
                                  before: node.trimmedDescription, after: replacement))
    }

    /// Records code left as it was, and queues a `// vault port:` comment above its statement.
    func report(_ node: some SyntaxProtocol, _ reason: String) {
        let key = "\(node.id.hashValue):\(reason)"
        guard !reported.contains(key) else { return }
        reported.insert(key)
        notPortable.append(NotPortable(file: file, line: line(of: node), reason: reason))
        if let anchor = SyntaxFacts.anchor(of: node) {
            pendingNotes[anchor.id, default: []].append(reason)
        }
    }

    /// Inserts the queued comments for `original` into the leading trivia of `rewritten`.
    private func attachNotes<Node: SyntaxProtocol>(for original: some SyntaxProtocol, to rewritten: Node) -> Node {
        guard let reasons = pendingNotes.removeValue(forKey: original.id) else { return rewritten }
        var trivia = Array(rewritten.leadingTrivia)
        let existing = rewritten.leadingTrivia.description
        var indentation: [TriviaPiece] = []
        for piece in trivia.reversed() {
            if case .spaces = piece { indentation.insert(piece, at: 0) } else if case .tabs = piece { indentation.insert(piece, at: 0) } else { break }
        }
        for reason in reasons {
            let comment = "// vault port: \(reason)"
            if existing.contains(comment) { continue }
            trivia.append(.lineComment(comment))
            trivia.append(.newlines(1))
            trivia.append(contentsOf: indentation)
        }
        return rewritten.with(\.leadingTrivia, Trivia(pieces: trivia))
    }

    override func visit(_ node: CodeBlockItemSyntax) -> CodeBlockItemSyntax {
        attachNotes(for: node, to: super.visit(node))
    }

    override func visit(_ node: MemberBlockItemSyntax) -> MemberBlockItemSyntax {
        attachNotes(for: node, to: super.visit(node))
    }

    // MARK: Dispatch to the rules

    override func visit(_ node: ImportDeclSyntax) -> DeclSyntax {
        rewriteImport(node)
    }

    override func visit(_ node: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        let rewritten = super.visit(node)
        return node.parent?.is(SourceFileSyntax.self) == true ? dropDuplicateImports(original: node, rewritten: rewritten) : rewritten
    }

    override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        renameIdentifierType(node)
    }

    override func visit(_ node: MemberTypeSyntax) -> TypeSyntax {
        renameMemberType(node)
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        renameDeclReference(node)
    }

    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        if let replaced = rewriteOptionalValueAccess(node) { return replaced }
        if let replaced = rewriteVaultAccessor(node) { return replaced }
        return renameMemberAccess(node)
    }

    override func visit(_ node: LabeledExprSyntax) -> LabeledExprSyntax {
        renameArgumentLabel(node)
    }

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        if let replaced = rewriteClassNameCall(node) { return replaced }
        noteUnsupportedCall(node)
        return super.visit(node)
    }

    override func visit(_ node: AttributeSyntax) -> AttributeSyntax {
        noteUnsupportedAttribute(node)
        return super.visit(node)
    }

    override func visit(_ node: KeyPathExprSyntax) -> ExprSyntax {
        noteUnsupportedKeyPath(node)
        return super.visit(node)
    }

    override func visit(_ node: EnumDeclSyntax) -> DeclSyntax {
        rewriteRealmEnum(node)
    }

    override func visit(_ node: ClassDeclSyntax) -> DeclSyntax {
        rewriteModelClass(node)
    }

    override func visit(_ node: MemberBlockItemListSyntax) -> MemberBlockItemListSyntax {
        rewriteModelMembers(node)
    }

    override func visit(_ node: VariableDeclSyntax) -> DeclSyntax {
        rewriteModelProperty(node)
    }

    // MARK: Building nodes

    /// Parses `text` (a declaration) with SwiftParser and returns it with `node`'s trivia.
    func parseDecl<T: SyntaxProtocol>(_ text: String, as type: T.Type, leading: Trivia, trailing: Trivia) -> T? {
        let parsed = Parser.parse(source: text)
        guard !parsed.hasError, parsed.statements.count == 1, let item = parsed.statements.first,
              let decl = Syntax(item.item).as(type) else { return nil }
        return decl.with(\.leadingTrivia, leading).with(\.trailingTrivia, trailing)
    }

    /// Parses `text` (an expression) with SwiftParser and returns it with the given trivia.
    func parseExpr(_ text: String, leading: Trivia, trailing: Trivia) -> ExprSyntax? {
        var parser = Parser(text)
        let expression = ExprSyntax.parse(from: &parser)
        guard !expression.hasError else { return nil }
        return expression.with(\.leadingTrivia, leading).with(\.trailingTrivia, trailing)
    }
}
