import Foundation

/// Which elements of an observed collection a range of commits wrote.
///
/// `test` answers for any id; `candidates`, when known, holds every id the
/// test can pass (a few written rows, typically), so a diff of a large
/// collection locates those instead of asking about every element.
struct ModifiedElements {
    /// A superset of the ids `test` passes; `nil` when only asking each element tells.
    let candidates: Set<Int64>?
    let test: (Int64) -> Bool

    static var none: ModifiedElements { ModifiedElements(candidates: [], test: { _ in false }) }

    init(candidates: Set<Int64>?, test: @escaping (Int64) -> Bool) {
        self.candidates = candidates
        self.test = test
    }

    /// The ids of `ids` that were written.
    func written(in ids: [Int64]) -> Set<Int64> {
        if let candidates { return Set(candidates.lazy.filter(test)).intersection(ids) }
        return Set(ids.lazy.filter(test))
    }
}

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
///
/// Cost: the common prefix and suffix of the two orderings are skipped by
/// comparison alone, so a commit that moves, inserts or deletes one element
/// of a large sorted collection maps only the span between its old and new
/// places; modifications are located from the written ids when they are known.
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
    init(old: [Int64], new: [Int64], isModified: @escaping (Int64) -> Bool) {
        self.init(old: old, new: new, modified: ModifiedElements(candidates: nil, test: isModified))
    }

    init(old: [Int64], new: [Int64], modified: ModifiedElements) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldMiddle = prefix..<(old.count - suffix), newMiddle = prefix..<(new.count - suffix)

        // Which old positions stayed (kept their relative order); outside the middle, all did.
        var stayedInMiddle = [Bool](repeating: false, count: oldMiddle.count)
        if !oldMiddle.isEmpty || !newMiddle.isEmpty {
            var oldPosition: [Int64: Int] = [:]
            oldPosition.reserveCapacity(oldMiddle.count)
            for index in oldMiddle { oldPosition[old[index]] = index }
            var inNew = [Bool](repeating: false, count: oldMiddle.count)
            // Common elements in new order, as their old positions.
            var common: [(old: Int, new: Int)] = []
            for index in newMiddle {
                if let position = oldPosition[new[index]] {
                    common.append((position, index))
                    inNew[position - prefix] = true
                } else {
                    insertions.append(index)
                }
            }
            for index in oldMiddle where !inNew[index - prefix] { deletions.append(index) }
            let stayed = Self.longestIncreasingRun(common.map(\.old))
            for (offset, element) in common.enumerated() {
                if stayed[offset] {
                    stayedInMiddle[element.old - prefix] = true
                } else {
                    deletions.append(element.old)
                    insertions.append(element.new)
                }
            }
        }
        func stayed(_ position: Int) -> Bool { !oldMiddle.contains(position) || stayedInMiddle[position - prefix] }

        if let candidates = modified.candidates, candidates.count <= 32 {
            // Few written ids: find each (a linear search is a vectorised compare).
            for id in candidates where modified.test(id) {
                if let position = old.firstIndex(of: id), stayed(position) { modifications.append(position) }
            }
        } else if modified.candidates?.isEmpty != true {
            for position in old.indices where stayed(position) && modified.test(old[position]) { modifications.append(position) }
        }
        deletions.sort()
        insertions.sort()
        modifications.sort()
    }

    /// Which offsets of `values` form one longest strictly increasing subsequence: O(n log n).
    static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        // Already in order (the common case: nothing moved): everything stays.
        if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) { return [Bool](repeating: true, count: values.count) }
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
        var run = [Bool](repeating: false, count: values.count)
        var offset = tailOffsets.last ?? -1
        while offset >= 0 {
            run[offset] = true
            offset = previous[offset]
        }
        return run
    }
}
