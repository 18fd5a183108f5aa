import Foundation

/// The difference between two orderings of a collection's elements, in
/// Realm's index conventions (see ``VaultCollectionChange``).
///
/// Elements are identified by a row id: an object's for `Results`,
/// `MutableSet` and `LinkingObjects`, the entry's for a `List` (so the same
/// object twice in a list is two elements). Elements present in both
/// orderings keep their place when they belong to a longest increasing run of
/// old positions (the fewest elements reported as moved); every other common
/// element moved, and a move is reported as a deletion plus an insertion, as
/// Realm does. Modifications are reported only for elements that stayed.
struct CollectionDiff: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    init(deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
    }

    /// The diff from `old` to `new` (ids unique within each); `isModified`
    /// says whether an element present in both was written meanwhile.
    init(old: [Int64], new: [Int64], isModified: (Int64) -> Bool) {
        // The common case — nothing inserted, deleted or moved — needs no maps.
        if old == new {
            for (index, id) in old.enumerated() where isModified(id) { modifications.append(index) }
            return
        }
        var oldPosition: [Int64: Int] = [:]
        oldPosition.reserveCapacity(old.count)
        for (index, id) in old.enumerated() { oldPosition[id] = index }
        var newIDs = Set<Int64>()
        newIDs.reserveCapacity(new.count)
        // Common elements in new order, as their old positions.
        var common: [(old: Int, new: Int)] = []
        for (index, id) in new.enumerated() {
            newIDs.insert(id)
            if let position = oldPosition[id] { common.append((position, index)) } else { insertions.append(index) }
        }
        for (index, id) in old.enumerated() where !newIDs.contains(id) { deletions.append(index) }
        let stayed = Self.longestIncreasingRun(common.map(\.old))
        for (offset, element) in common.enumerated() {
            if stayed.contains(offset) {
                if isModified(old[element.old]) { modifications.append(element.old) }
            } else {
                deletions.append(element.old)
                insertions.append(element.new)
            }
        }
        deletions.sort()
        insertions.sort()
        modifications.sort()
    }

    /// The offsets (into `values`) of one longest strictly increasing subsequence: O(n log n).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        guard !values.isEmpty else { return [] }
        // Already in order (the common case: nothing moved): everything stays.
        if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) { return Set(values.indices) }
        var tailOffsets: [Int] = []          // tailOffsets[k]: offset of the smallest tail of a run of length k+1
        var previous = [Int](repeating: -1, count: values.count)
        for (offset, value) in values.enumerated() {
            var low = 0, high = tailOffsets.count
            while low < high {
                let middle = (low + high) / 2
                if values[tailOffsets[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[offset] = tailOffsets[low - 1] }
            if low == tailOffsets.count { tailOffsets.append(offset) } else { tailOffsets[low] = offset }
        }
        var run = Set<Int>()
        var offset = tailOffsets.last ?? -1
        while offset >= 0 {
            run.insert(offset)
            offset = previous[offset]
        }
        return run
    }
}
