import Foundation
import VaultKit

/// A dynamic object's list, set or map as the studio renders it: a plain
/// array of its elements (a map: a dictionary by key), `nil` elements as
/// `NSNull`. Dynamic objects give their collections as live, typed `List`,
/// `MutableSet` and `Map` (Realm's dynamic API); the page only needs their
/// current contents.
protocol StudioCollection {
    /// The elements as an array, or a map's entries as a dictionary.
    var studioContents: Any { get }
}

extension List: StudioCollection {
    var studioContents: Any { map(studioElement) }
}

extension MutableSet: StudioCollection {
    var studioContents: Any { map(studioElement) }
}

extension Map: StudioCollection {
    var studioContents: Any {
        Dictionary(asKeyValueSequence().map { ($0.key.mapKeyString, studioElement($0.value)) }, uniquingKeysWith: { first, _ in first })
    }
}

/// An element boxed for rendering: an optional's value, or `NSNull` for its `nil`.
private func studioElement<Element>(_ element: Element) -> Any {
    StudioValueCodec.unwrap(element) ?? NSNull()
}
