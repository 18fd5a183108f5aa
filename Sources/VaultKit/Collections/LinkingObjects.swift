import Foundation
import VaultCore

/// The objects that link to this one through a property:
/// `@Persisted(originProperty: "friends") var friendOf: LinkingObjects<Person>`.
///
/// Computed from the links (never stored); empty while the object is unmanaged.
public final class LinkingObjects<Element: Object>: RandomAccessCollection, PersistableCollection, CustomStringConvertible {
    /// Set once: at creation for a managed owner's backlinks, or when the unmanaged owner is added (see `adopt`).
    private(set) var binding: CollectionBinding?
    private var cached: [Element] = []
    private var cachedVersion: UInt64 = 0

    /// An unmanaged (always empty) instance.
    public init() { binding = nil }

    init(binding: CollectionBinding) { self.binding = binding }

    static var collectionKind: CollectionKind? { nil }
    static var elementType: any PersistableValue.Type { Element.self }
    static func makeManaged(_ binding: CollectionBinding) -> LinkingObjects<Element> { LinkingObjects(binding: binding) }

    func adopt(_ binding: CollectionBinding) -> Bool {
        guard self.binding == nil, prototypeElements.isEmpty else { return false }
        self.binding = binding
        cachedVersion = binding.vault.session.checkedContentVersion &- 1
        return true
    }
    public static func _vaultDefaultValue() -> LinkingObjects<Element> { LinkingObjects() }
    var unmanagedEntries: [(key: String?, value: Any)] { [] }

    /// The schema prototype an unmanaged instance holds while a key path is followed (see KeyPathName).
    private var prototypeElements: [Element] = []

    /// An unmanaged instance holding `prototype`, for following a key path through it.
    init(prototype: Element) {
        binding = nil
        prototypeElements = [prototype]
    }

    private var elements: [Element] {
        guard let binding else { return prototypeElements }
        return binding.vault.exclusiveIfFrozen {
            if cachedVersion != binding.vault.session.checkedContentVersion {
                cached = binding.vault.linkingObjects(binding).compactMap { $0 as? Element }
                cachedVersion = binding.vault.session.checkedContentVersion
            }
            return cached
        }
    }

    /// The vault managing the owner object, if any.
    public var vault: Vault? { binding?.vault }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public subscript(index: Int) -> Element { elements[index] }

    func assignUnmanaged(from value: Any) -> Bool { false }

    public var description: String { "LinkingObjects<\(Element.self)>(\(count) objects)" }
}
