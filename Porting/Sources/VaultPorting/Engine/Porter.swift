// # How `vault-port` rewrites RealmSwift code
//
// VaultKit keeps RealmSwift's API with `Realm` renamed `Vault`, so porting an app is
// mostly renaming. What makes a tool worth having is the rest: the legacy model syntax
// (`@objc dynamic var`, `RealmOptional`, `let list = List<T>()`, the `primaryKey()` family
// of overrides) that RealmSwift still accepted but VaultKit does not store at all, because
// there is no Objective-C runtime to discover those properties on Linux. A model left in
// the legacy syntax would compile against VaultKit (most of it) and silently persist
// nothing. The tool's job is to turn that syntax into `@Persisted` declarations that mean
// exactly what the legacy ones meant, and to say loudly, in the file and in its report,
// wherever it cannot prove that.
//
// ## The approach
//
// Every file is parsed with SwiftParser into a full-fidelity syntax tree; the tool never
// matches text with regular expressions. The tree keeps every byte of the source,
// comments and whitespace included, as "trivia" attached to tokens, so a rewrite that
// replaces a node while carrying over its leading and trailing trivia leaves the rest of
// the file byte for byte as it was. A file the parser reports errors in is not touched.
//
// Porting runs in two passes over all the files given at once:
//
// 1. An index pass (`ModelIndex`) walks every file and records each class, its
//    superclass, its properties and their declared types, its `RealmOptional` and
//    `RealmProperty` properties and whether it overrides `className()`. Model classes are
//    those inheriting from `Object`, `EmbeddedObject` or `AsymmetricObject`, directly or
//    through classes declared in the ported files. Because the index spans all files, a
//    model in one file and its uses in another are ported consistently.
//
// 2. A rewrite pass (`LegacyRewriter`, one `SyntaxRewriter` per file) applies the rules.
//    A rewriter's `visit` methods receive the node of the *original* tree, with its
//    parents, so every decision is taken on the code as written and every reported line
//    number is a line of the original file, even when earlier rules have already replaced
//    nodes above it or inserted comments. Replacement nodes are built from the rewritten
//    children (so renames inside a ported declaration are kept) and, where a new piece of
//    syntax is needed (`@Persisted(primaryKey: true)`, `String(describing: Dog.self)`), by
//    parsing a small fragment with SwiftParser.
//
// When a rule meets code it cannot port safely, it leaves that code exactly as it was,
// records it (file, line, reason) and queues a `// vault port: <reason>` comment that the
// rewriter inserts above the enclosing statement or member, at its indentation. The comment
// is not inserted again when it is already there, which with the rules' own fixed points
// makes the tool idempotent: a second run changes nothing.
//
// ## The rules and why each is safe
//
// 1. Imports. `import RealmSwift` and `import Realm` become `import VaultKit`; a second,
//    plain `import VaultKit` in the same file is dropped. VaultKit re-exports what a Realm
//    app used from both modules, so no name goes missing. `import Realm.Private` and other
//    submodules have no counterpart and are reported.
//
// 2. Type renames. Only exact identifiers are renamed (`Realm`, `RealmCollection`,
//    `AnyRealmCollection`, `AnyRealmValue`, `RealmCollectionChange`, `RealmEnum`,
//    `RealmPublishers`, `RealmKeyedCollection`, `RealmMapChange`, the protocols generic code
//    constrains to — `RealmCollectionValue`, `RealmFetchable`, `RealmSectionedResult`… — and
//    the `RealmSwift.` module qualifier), in type positions and as expression references, never as a substring:
//    a user's `realmManager` or `realm` variable is a different token and is not touched.
//    A member name is renamed only behind the module qualifier (`RealmSwift.Realm`), since
//    `x.Realm` could be anything. `Realm.UpdatePolicy` and `Realm.Notification` become
//    VaultKit's top-level `UpdatePolicy` and `VaultNotification`, and the configuration's
//    `deleteRealmIfMigrationNeeded` becomes `deleteVaultIfMigrationNeeded`. `x.realm`
//    becomes `x.vault` only when `x`'s declared type is a model (without a `realm` property
//    of its own) or one of RealmSwift's collections; a user's `store.realm` is left alone.
//    Each VaultKit name is the same API under another name, so the meaning is unchanged.
//
// 3. Legacy models, only in model classes and only for direct members of their body:
//    - `@objc dynamic var x = v` (or `dynamic var`) becomes `@Persisted var x = v`; the
//      type annotation and default are kept, and `= nil` is dropped from an optional (the
//      default of an optional `@Persisted` is nil). Realm persisted exactly these
//      properties, with these defaults, so the schema is the same. Computed, `lazy`,
//      `static` and `class` properties were never persisted and are left alone;
//      `@objc(name)` (which renamed the stored column) and several properties in one
//      declaration are reported.
//    - `let list = List<T>()`, `MutableSet<T>()`, `Map<K, V>()` become
//      `@Persisted var list: List<T>` (and so on): the same persisted collection.
//    - `let x = RealmOptional<T>()` becomes `@Persisted var x: T?`, and
//      `RealmProperty<T>()` becomes `@Persisted var x: T`. Their `.value` accessor goes
//      away, so `obj.x.value` must become `obj.x`; this is done only where the receiver
//      is provably that property: a bare `x` that resolves to a member of the model, or
//      `r.x` where `r`'s declared type (an annotation, a parameter type, `Dog(…)`, `self`,
//      a property of known type) is that model or a subclass. Any other `.x.value` on a
//      name that some model uses for such a property is reported and left as it was:
//      the result fails to compile rather than changing meaning.
//    - `let owners = LinkingObjects(fromType: P.self, property: "dogs")` becomes
//      `@Persisted(originProperty: "dogs") var owners: LinkingObjects<P>` when both
//      arguments are literals.
//    - `primaryKey()`, `indexedProperties()` and `ignoredProperties()` returning plain
//      literals are removed and their meaning moves onto the properties they name:
//      `@Persisted(primaryKey: true)`, `@Persisted(indexed: true)`, and for ignored ones
//      a plain stored property (`@objc dynamic` dropped, no `@Persisted`), which VaultKit
//      does not store, as Realm did not. A body that is not one plain literal, or names a
//      property the class does not declare, is reported and left; when that happens to
//      `ignoredProperties()`, no property of the class is converted, because converting
//      an ignored property would start persisting it.
//    - `@objc enum E: Int, RealmEnum` loses `@objc` and conforms to `PersistableEnum`
//      (rule 2's rename); the enum is stored by its raw value as before.
//    - `className()` overrides that return the class's own name are removed (VaultKit
//      names classes after their Swift name, which is then the same); any other is
//      reported, because renaming the stored class is a schema change. `Dog.className()`
//      becomes `String(describing: Dog.self)`, the same string, unless some override
//      makes them differ, in which case the call is reported.
//    - `@objcMembers` and a plain `@objc` on a model class are dropped: they only served
//      Realm's Objective-C discovery. `@objc(Name)` on a model renames the stored class and
//      is reported.
//
// 4. Modern code (`@Persisted`) is left as it is, except that a bare `@Persisted` named by
//    a removed `primaryKey()` or `indexedProperties()` gains `primaryKey: true` or
//    `indexed: true`. Since no rule matches its own output, running the tool on ported
//    code changes nothing.

import SwiftSyntax
import SwiftParser

/// One Swift source text to port.
public struct PortInput: Sendable {
    /// The name reported for this source (usually its path).
    public var file: String
    /// The source text.
    public var text: String

    /// Creates an input.
    public init(file: String, text: String) {
        self.file = file
        self.text = text
    }
}

/// The rewriting engine: ports RealmSwift source text to VaultKit source text.
///
/// ```swift
/// let result = Porter.port(source: legacyText, file: "Models.swift")
/// print(result.ported)
/// for problem in result.notPortable { print(problem.line, problem.reason) }
/// ```
public enum Porter {
    /// Ports several files together, so that models declared in one file are known in all.
    ///
    /// - Returns: one result per input, in the same order.
    public static func port(_ inputs: [PortInput]) -> [FilePortResult] {
        let trees = inputs.map { Parser.parse(source: $0.text) }
        let index = ModelIndex(trees: trees.filter { !$0.hasError })
        return zip(inputs, trees).map { input, tree in
            guard !tree.hasError else {
                let converter = SourceLocationConverter(fileName: input.file, tree: tree)
                let line = firstErrorLine(in: tree, converter: converter)
                return FilePortResult(file: input.file, original: input.text, ported: input.text, changes: [],
                                      notPortable: [NotPortable(file: input.file, line: line,
                                                                reason: "the file does not parse; nothing was changed")])
            }
            let rewriter = LegacyRewriter(file: input.file, tree: tree, index: index)
            let ported = rewriter.rewrite(tree).description
            return FilePortResult(file: input.file, original: input.text, ported: ported,
                                  changes: rewriter.changes.sorted { $0.line < $1.line },
                                  notPortable: rewriter.notPortable.sorted { $0.line < $1.line })
        }
    }

    /// Ports one source text on its own.
    public static func port(source: String, file: String = "input.swift") -> FilePortResult {
        port([PortInput(file: file, text: source)])[0]
    }

    private static func firstErrorLine(in tree: SourceFileSyntax, converter: SourceLocationConverter) -> Int {
        for token in tree.tokens(viewMode: .all) where token.presence == .missing || token.tokenKind.isUnexpected {
            return converter.location(for: token.position).line
        }
        return 1
    }
}

private extension TokenKind {
    var isUnexpected: Bool {
        if case .unknown = self { return true }
        return false
    }
}
