import Foundation
import Testing
import RealmFileReader
import VaultTestSupport

/// `bulk.realm` (200,000 objects, 13 MB) is read from the shared fixture directory, where it
/// is checked in; it is too big to copy next to the tests.
@Suite("bulk.realm figures")
struct BulkTests {
    // Skipped, with this reason, when the shared fixture directory is not checked out.
    @Test(.enabled(if: Fixtures.sharedExists("bulk.realm"),
                   "shared/fixtures/realm/bulk.realm is not present next to this checkout"))
    func everyFigureOfTheSummary() throws {
        let summary = try Fixtures.json(Fixtures.sharedURL("bulk.summary.json"))
        let file = try RealmFile(url: Fixtures.sharedURL("bulk.realm"))
        let className = try #require(summary["class"] as? String)
        let cls = try #require(file.classes.first { $0.name == className })
        func index(_ name: String) throws -> Int { try #require(cls.propertyIndex(named: name)) }
        let (id, name, value, at, maybe, nums) =
            (try index("_id"), try index("name"), try index("value"), try index("at"), try index("maybe"), try index("nums"))

        var count = 0
        var sumID: Int64 = 0, sumValue = 0.0, maybeNulls = 0, sumMaybe: Int64 = 0
        var numsEntries = 0, sumNums: Int64 = 0, sumSeconds: Int64 = 0, sumNanoseconds: Int64 = 0, nameBytes = 0
        var first: RealmObject?
        var last: RealmObject?
        try file.forEachObject(ofClass: className) { object in
            count += 1
            if first == nil { first = object }
            last = object
            if case let .int(v) = object.values[id] { sumID += v }
            if case let .double(v) = object.values[value] { sumValue += v }
            if case let .string(v) = object.values[name] { nameBytes += v.utf8.count }
            if case let .date(s, n) = object.values[at] { sumSeconds += s; sumNanoseconds += Int64(n) }
            switch object.values[maybe] {
            case .null: maybeNulls += 1
            case let .int(v): sumMaybe += v
            default: break
            }
            if case let .list(items) = object.values[nums] {
                numsEntries += items.count
                for case let .int(v) in items { sumNums += v }
            }
        }
        func figure(_ key: String) -> Int64? { (summary[key] as? NSNumber)?.int64Value }
        #expect(Int64(count) == figure("objects"))
        #expect(try file.objectCount(ofClass: className) == count)
        #expect(sumID == figure("sum__id"))
        #expect(sumValue == (summary["sum_value"] as? NSNumber)?.doubleValue)
        #expect(Int64(maybeNulls) == figure("maybe_nulls"))
        #expect(sumMaybe == figure("sum_maybe"))
        #expect(Int64(numsEntries) == figure("nums_entries"))
        #expect(sumNums == figure("sum_nums"))
        #expect(sumSeconds == figure("sum_at_seconds"))
        #expect(sumNanoseconds == figure("sum_at_nanoseconds"))
        #expect(Int64(nameBytes) == figure("name_bytes"))

        let canonical = try CanonicalJSON(file: file, loadObjects: false)
        for (label, object) in [("first", first), ("last", last)] {
            let expected = try #require(summary[label] as? [String: Any])
            let actual = try #require(object)
            for (index, property) in cls.properties.enumerated() {
                let mine = JSONComparison.canonical(canonical.encode(actual.values[index], property: property))
                let theirs = JSONComparison.canonical(expected[property.name] ?? NSNull())
                #expect(mine == theirs, "\(label).\(property.name)")
            }
        }
    }
}
