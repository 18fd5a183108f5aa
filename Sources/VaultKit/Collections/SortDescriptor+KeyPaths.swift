import Foundation

extension SortDescriptor {
    /// A sort by the property `keyPath` names (`\Person.name`), ascending unless told otherwise.
    public init<Element: ObjectBase>(keyPath: PartialKeyPath<Element>, ascending: Bool = true) {
        self.init(keyPath: _name(for: keyPath), ascending: ascending)
    }
}
