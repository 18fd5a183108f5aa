import Testing
@testable import VaultKit

// The diff under every collection notification, checked against random
// orderings: replaying it on the old ids gives the new ones, and it reports
// what Realm's conventions require whichever way the written ids are known.

@Suite("Collection diff")
struct CollectionDiffTests {
    /// A random new ordering of `old`: some ids deleted, some inserted, a few moved.
    private func mutate(_ old: [Int64], using generator: inout some RandomNumberGenerator) -> [Int64] {
        var new = old.filter { _ in Int.random(in: 0..<10, using: &generator) != 0 }
        for _ in 0..<Int.random(in: 0...3, using: &generator) where !new.isEmpty {
            let element = new.remove(at: Int.random(in: 0..<new.count, using: &generator))
            new.insert(element, at: Int.random(in: 0...new.count, using: &generator))
        }
        var next = (old.max() ?? 0) + 1
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            new.insert(next, at: Int.random(in: 0...new.count, using: &generator))
            next += 1
        }
        return new
    }

    @Test("replaying a diff on the old ids gives the new ones; written elements that stayed are modifications; both search paths agree")
    func randomOrderings() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let count = round % 3 == 0 ? Int.random(in: 0...5, using: &generator) : Int.random(in: 0...300, using: &generator)
            let old = (0..<Int64(count)).shuffled(using: &generator)
            let new = mutate(old, using: &generator)
            let written = Set(old.filter { _ in Int.random(in: 0..<8, using: &generator) == 0 })
            let byCandidates = CollectionDiff(old: old, new: new, modified: ModifiedElements(candidates: written) { written.contains($0) })
            let byTest = CollectionDiff(old: old, new: new) { written.contains($0) }
            #expect(byCandidates == byTest)
            #expect(replay(old, deletions: byTest.deletions, insertions: byTest.insertions, new: new) == new)
            #expect(byTest.deletions == byTest.deletions.sorted() && byTest.insertions == byTest.insertions.sorted())
            // A modification is a written element that stayed: neither deleted nor inserted.
            let deleted = Set(byTest.deletions)
            #expect(Set(byTest.modifications) == Set(old.indices.filter { written.contains(old[$0]) && !deleted.contains($0) }))
        }
    }

    @Test("one element moved in a large ordering is one deletion and one insertion; nothing else is reported")
    func oneMove() {
        let old = Array(Int64(0)..<10_000)
        var new = old
        new.remove(at: 7_000)
        new.insert(7_000, at: 12)
        let diff = CollectionDiff(old: old, new: new, modified: ModifiedElements(candidates: [7_000, 5]) { $0 == 7_000 || $0 == 5 })
        #expect(diff == CollectionDiff(deletions: [7_000], insertions: [12], modifications: [5]))
        #expect(CollectionDiff(old: old, new: old) { _ in false }.isEmpty)
    }
}
