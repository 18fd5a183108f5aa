import Foundation

// Realm's key-value coding on collections: `results.value(forKey:)` gives
// every object's value of a property (`"self"`: the values of a value
// collection), `setValue(_:forKey:)` sets it on every object (inside a write,
// as any change). See CollectionKeyValueCoding.

extension Results {
    /// Every object's value of property `key`, in order, as an array (`[Any]`;
    /// nil values as `NSNull`, as Realm gives them).
    public func value(forKey key: String) -> Any? { CollectionKeyValueCoding.value(forKey: key, in: self) }

    /// Sets property `key` of every object to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) { CollectionKeyValueCoding.setValue(value, forKey: key, in: self) }
}

extension List {
    /// Every element's value of property `key` (values: `"self"`), in order (`[Any]`).
    public func value(forKey key: String) -> Any? { CollectionKeyValueCoding.value(forKey: key, in: self) }

    /// Sets property `key` of every element object to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) { CollectionKeyValueCoding.setValue(value, forKey: key, in: self) }
}

extension MutableSet {
    /// Every element's value of property `key` (values: `"self"`) (`[Any]`).
    public func value(forKey key: String) -> Any? { CollectionKeyValueCoding.value(forKey: key, in: self) }

    /// Sets property `key` of every element object to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) { CollectionKeyValueCoding.setValue(value, forKey: key, in: self) }
}

extension LinkingObjects {
    /// Every linking object's value of property `key`, in order (`[Any]`).
    public func value(forKey key: String) -> Any? { CollectionKeyValueCoding.value(forKey: key, in: self) }

    /// Sets property `key` of every linking object to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) { CollectionKeyValueCoding.setValue(value, forKey: key, in: self) }
}

// MARK: - VaultCollection conformances

extension Results: VaultCollection, ObjectResultsProviding {
    func objectResults() -> Any? { self }
}

extension List: VaultCollection, ObjectResultsProviding {
    func objectResults() -> Any? { binding?.erasedResults(of: Element.self) }
}

extension MutableSet: VaultCollection, ObjectResultsProviding {
    func objectResults() -> Any? { binding?.erasedResults(of: Element.self) }
}

extension LinkingObjects: VaultCollection, ObjectResultsProviding {
    func objectResults() -> Any? { binding?.erasedResults(of: Element.self) }
}

extension CollectionBinding {
    /// Results over the collection's objects when `Element` is an object class, boxed; nil for values.
    func erasedResults<Element>(of _: Element.Type) -> Any? {
        guard let objectType = Element.self as? ObjectBase.Type else { return nil }
        // Through the class itself, so that the results are of the dynamic class (Self), not ObjectBase.
        return objectType.collectionResults(self)
    }
}

extension ObjectBase {
    /// `Results<Self>` over a collection binding, boxed.
    static func collectionResults(_ binding: CollectionBinding) -> Any { binding.results(of: Self.self) }
}
