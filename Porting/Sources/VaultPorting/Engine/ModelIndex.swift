import SwiftSyntax

/// What the pre-pass learned about one class declared in the ported files.
struct ClassInfo: Sendable {
    /// The class name.
    var name: String
    /// The first inherited type, when there is one (the superclass for a class).
    var superclass: String?
    /// Declared property types by property name (the base type name: `Dog` for `Dog?`).
    var propertyTypes: [String: String] = [:]
    /// Names of every stored or computed property declared in the class body.
    var propertyNames: Set<String> = []
    /// Legacy `RealmOptional`/`RealmProperty` properties by name.
    var optionalProperties: Set<String> = []
    /// Whether `className()` is overridden with anything but the class's own name.
    var overridesClassName = false
}

/// Classes, model classes and legacy optional properties across all the files being ported.
///
/// Built once, before any rewriting, so that a file can rely on models declared in another
/// (a subclass of a model declared elsewhere, a `.value` access on a property of a model
/// from another file).
struct ModelIndex: Sendable {
    /// The root classes of Realm models.
    static let modelRoots: Set<String> = ["Object", "EmbeddedObject", "AsymmetricObject"]

    private(set) var classes: [String: ClassInfo] = [:]
    private(set) var models: Set<String> = []

    init(trees: [SourceFileSyntax]) {
        for tree in trees {
            let collector = ClassCollector(viewMode: .sourceAccurate)
            collector.walk(tree)
            for info in collector.classes where classes[info.name] == nil {
                classes[info.name] = info
            }
        }
        // A model inherits from a root directly, or through a class declared in these files.
        var changed = true
        while changed {
            changed = false
            for info in classes.values where !models.contains(info.name) {
                guard let superclass = info.superclass else { continue }
                if Self.modelRoots.contains(superclass) || models.contains(superclass) {
                    models.insert(info.name)
                    changed = true
                }
            }
        }
    }

    /// Whether `name` is a model class declared in the ported files.
    func isModel(_ name: String) -> Bool { models.contains(name) }

    /// The classes from `name` up its superclass chain (declared in these files only).
    func chain(_ name: String) -> [ClassInfo] {
        var result: [ClassInfo] = []
        var current: String? = name
        var seen: Set<String> = []
        while let next = current, let info = classes[next], !seen.contains(next) {
            seen.insert(next)
            result.append(info)
            current = info.superclass
        }
        return result
    }

    /// Whether `property` is a legacy `RealmOptional`/`RealmProperty` of `className` or a superclass.
    func isOptionalProperty(_ property: String, of className: String) -> Bool {
        chain(className).contains { $0.optionalProperties.contains(property) }
    }

    /// Whether any model declares a legacy optional property called `property`.
    func anyOptionalProperty(named property: String) -> Bool {
        classes.values.contains { $0.optionalProperties.contains(property) }
    }

    /// Whether `className` (or a superclass) declares a property called `property`.
    func hasProperty(_ property: String, in className: String) -> Bool {
        chain(className).contains { $0.propertyNames.contains(property) }
    }

    /// The declared type of `property` in `className` or a superclass, when known.
    func propertyType(_ property: String, in className: String) -> String? {
        for info in chain(className) {
            if let type = info.propertyTypes[property] { return type }
        }
        return nil
    }

    /// Whether `className()` on `className` is the class's own name (no override changes it).
    func classNameIsOwnName(_ className: String) -> Bool {
        !chain(className).contains { $0.overridesClassName }
    }
}

/// Collects every class declaration of a file (nested ones included).
private final class ClassCollector: SyntaxVisitor {
    var classes: [ClassInfo] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        var info = ClassInfo(name: node.name.text)
        info.superclass = node.inheritanceClause?.inheritedTypes.first.map { SyntaxFacts.baseTypeName($0.type) }
        for member in node.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    info.propertyNames.insert(name)
                    if let type = SyntaxFacts.declaredTypeName(of: binding) {
                        info.propertyTypes[name] = type
                    }
                    if let call = binding.initializer?.value.as(FunctionCallExprSyntax.self),
                       let generic = SyntaxFacts.genericCallee(call),
                       ["RealmOptional", "RealmProperty"].contains(generic.name) {
                        info.optionalProperties.insert(name)
                    }
                }
            } else if let function = member.decl.as(FunctionDeclSyntax.self),
                      function.name.text == "className", SyntaxFacts.isTypeMethod(function) {
                if SyntaxFacts.literalStrings(returnedBy: function) != [node.name.text] {
                    info.overridesClassName = true
                }
            }
        }
        classes.append(info)
        return .visitChildren
    }
}
