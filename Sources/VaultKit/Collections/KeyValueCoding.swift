import Foundation

// Realm's key-value coding on collections of objects: `results.value(forKey:)`
// gives every object's value of a property, `setValue(_:forKey:)` sets it on
// every object (inside a write, as any change).

extension Results {
    /// Every object's value of property `key`, in order, as an array (`[Any]`;
    /// nil values as `NSNull`, as Realm gives them).
    public func value(forKey key: String) -> Any? {
        map { object -> Any in object[key] ?? NSNull() }
    }

    /// Sets property `key` of every object to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object[key] = value }
    }
}

extension List where Element: ObjectBase {
    /// Every element's value of property `key`, in order (`[Any]`).
    public func value(forKey key: String) -> Any? {
        map { object -> Any in object[key] ?? NSNull() }
    }

    /// Sets property `key` of every element to `value` (inside a write).
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(self) { object[key] = value }
    }
}
