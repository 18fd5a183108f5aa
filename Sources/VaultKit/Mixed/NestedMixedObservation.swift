import Foundation
import VaultCore

/// Observes a list or dictionary nested in a mixed value (Realm's
/// `observe` on `listValue`/`dictionaryValue`). A nested collection has no rows
/// (see MixedValue.swift), so a delivery compares the collection as stored now
/// with what it was at the last delivery: a dictionary by key (removed, added,
/// changed), a list by position (the common head and tail kept; of the rest,
/// positions present in both are modifications, the others deletions or
/// insertions). A key or position written with the value it already held does
/// not count (Realm's would): the stored value carries no trace of the write.
final class NestedMixedObservation: Observation {
    enum Change {
        case initial
        case list(deletions: [Int], insertions: [Int], modifications: [Int])
        case dictionary(deletions: [String], insertions: [String], modifications: [String])
    }

    private let nested: NestedMixedCollection
    private let block: (Change) -> Void
    private var delivered: MixedValue?

    init(nested: NestedMixedCollection, block: @escaping (Change) -> Void) {
        self.nested = nested
        self.block = block
    }

    override func deliver(in vault: Vault, changes: TransactionChanges?) {
        let sequence = vault.commitSequence
        guard let old = delivered else {
            delivered = nested.storedCollection()
            deliveredSequence = sequence
            block(.initial)
            return
        }
        guard sequence != deliveredSequence else { return }
        let new = nested.storedCollection()
        delivered = new
        deliveredSequence = sequence
        switch (old, new) {
        case (.dictionary(let before), .dictionary(let after)):
            let was = Dictionary(before, uniquingKeysWith: { first, _ in first })
            let now = Dictionary(after, uniquingKeysWith: { first, _ in first })
            let deletions = was.keys.filter { now[$0] == nil }.sorted()
            let insertions = now.keys.filter { was[$0] == nil }.sorted()
            let modifications = now.keys.filter { key in was[key].map { $0 != now[key] } ?? false }.sorted()
            guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
            block(.dictionary(deletions: deletions, insertions: insertions, modifications: modifications))
        default:
            let before = Self.elements(old), after = Self.elements(new)
            let (deletions, insertions, modifications) = Self.positionalDiff(before, after)
            guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
            block(.list(deletions: deletions, insertions: insertions, modifications: modifications))
        }
    }

    override func rebaseline(in vault: Vault) {
        guard delivered != nil else { return }
        delivered = nested.storedCollection()
        deliveredSequence = vault.commitSequence
    }

    private static func elements(_ value: MixedValue) -> [MixedValue] {
        if case .list(let elements) = value { return elements }
        return []
    }

    /// Deletions (old positions), insertions (new positions) and modifications
    /// (old positions) turning `before` into `after`.
    static func positionalDiff(_ before: [MixedValue], _ after: [MixedValue]) -> ([Int], [Int], [Int]) {
        var head = 0
        while head < before.count && head < after.count && before[head] == after[head] { head += 1 }
        var tail = 0
        while tail < before.count - head && tail < after.count - head
                && before[before.count - 1 - tail] == after[after.count - 1 - tail] { tail += 1 }
        let oldMiddle = head..<(before.count - tail), newMiddle = head..<(after.count - tail)
        let shared = min(oldMiddle.count, newMiddle.count)
        let modifications = (0..<shared).map { head + $0 }.filter { before[$0] != after[$0] }
        let deletions = Array((head + shared)..<oldMiddle.upperBound)
        let insertions = Array((head + shared)..<newMiddle.upperBound)
        return (deletions, insertions, modifications)
    }
}

extension NestedMixedCollection {
    /// The collection as stored now (`.none` once replaced or removed).
    func storedCollection() -> MixedValue { current() }

    /// Registers an observation of this nested collection.
    func observe(_ block: @escaping (NestedMixedObservation.Change) -> Void) -> NotificationToken {
        owningVault.register(NestedMixedObservation(nested: self, block: block))
    }
}
