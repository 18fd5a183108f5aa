import Foundation

// `List` is a `MutableCollection`, as Realm's is: Swift's in-place algorithms
// (`reverse()`, `sort()`, `shuffle()`, `partition(by:)`, a range assigned
// with `list[1..<3] = …`) work on it, inside a write for a managed list.
//
// The common reorderings are the list's own methods, so each is one rewrite
// of the list (kept entries move; nothing is deleted and added again, so
// embedded elements keep their rows) instead of one per swap the generic
// algorithm would make. Called on a property (`person.dogs.reverse()`), the
// generic mutating forms also end by assigning the list to its own property,
// which leaves it as it is.

extension List: MutableCollection {
    /// The elements in `bounds`; setting it replaces them (Realm's range subscript).
    public subscript(bounds: Range<Int>) -> Slice<List<Element>> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }

    /// Reverses the order of the elements, in one rewrite.
    public func reverse() {
        reorder { Array($0.indices.reversed()) }
    }

    /// Sorts the elements by `areInIncreasingOrder`, in one rewrite.
    public func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        let current = Array(self)
        let order = try current.indices.sorted { try areInIncreasingOrder(current[$0], current[$1]) }
        reorder { _ in order }
    }

    /// Shuffles the elements with `generator`, in one rewrite.
    public func shuffle<G: RandomNumberGenerator>(using generator: inout G) {
        let order = Array(indices).shuffled(using: &generator)
        reorder { _ in order }
    }

    /// Shuffles the elements, in one rewrite.
    public func shuffle() {
        var generator = SystemRandomNumberGenerator()
        shuffle(using: &generator)
    }
}

extension List where Element: Comparable {
    /// Sorts the elements in increasing order, in one rewrite.
    public func sort() { sort(by: <) }
}
