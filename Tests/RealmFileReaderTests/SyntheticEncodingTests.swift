import Foundation
import Testing
@testable import RealmFileReader
import VaultTestSupport

/// Encodings that the Realm-written fixtures do not contain, in files built node by node.
@Suite("Encodings beyond the fixtures")
struct SyntheticEncodingTests {
    typealias R = SyntheticRealm

    private func mixed(_ b: inout R, composite: [Int64], ints: [Int64]? = nil, pairs: [Int64]? = nil,
                       strings: [String?]? = nil, refs: [Int]? = nil) -> Int {
        let c = b.ints(composite)
        let i = ints.map { b.ints($0) } ?? 0
        let p = pairs.map { b.ints($0) } ?? 0
        let s = strings.map { b.shortStrings($0) } ?? 0
        let r = refs.map { b.slots($0.map { .ref($0) }) } ?? 0
        return b.slots([.ref(c), .ref(i), .ref(p), .ref(s), .ref(r)])
    }

    private static func composite(_ value: Int64, payload: Int64, type: Int64) -> Int64 {
        value << 8 | payload << 5 | (type + 1)
    }

    /// A format-24 file: enum strings, nested collections and typed links in mixed values,
    /// a chained blob, a list B+tree with an inner node, BID32 decimals, typed-link and
    /// link columns (with an unresolved link), a dictionary, and a keyed cluster inner node.
    private func format24File() -> Data {
        var b = R()
        // class_Other (table key 1): one Int column, objects 0 and 1.
        let otherColumns = [R.Column(name: "v", type: 0, attributes: 0, key: R.columnKey(leaf: 0, type: 0))]
        let otherCluster = b.slots([.tagged(2), .ref(b.ints([10, 20]))])
        let other = b.table(key: 1, columns: otherColumns, cluster: otherCluster)

        let enumKeys = b.shortStrings(["alpha", "beta"])
        let columns = [
            R.Column(name: "name", type: 2, attributes: 0, key: R.columnKey(leaf: 0, type: 2), enumKeys: enumKeys),
            R.Column(name: "mix", type: 6, attributes: 16, key: R.columnKey(leaf: 1, type: 6, attributes: 16)),
            R.Column(name: "big", type: 4, attributes: 16, key: R.columnKey(leaf: 2, type: 4, attributes: 16)),
            R.Column(name: "nums", type: 0, attributes: 32, key: R.columnKey(leaf: 3, type: 0, attributes: 32)),
            R.Column(name: "dec", type: 11, attributes: 16, key: R.columnKey(leaf: 4, type: 11, attributes: 16)),
            R.Column(name: "tl", type: 16, attributes: 16, key: R.columnKey(leaf: 5, type: 16, attributes: 16)),
            R.Column(name: "dict", type: 0 | 2 << 16, attributes: 64 | 16,
                     key: R.columnKey(leaf: 6, type: 0, attributes: 64 | 16)),
            R.Column(name: "owner", type: 12, attributes: 16, key: R.columnKey(leaf: 7, type: 12, attributes: 16)),
        ]

        // Row 0's mixed: a list [5, "x", {"a": link Other/0, "b": true}].
        let dictKeys = b.shortStrings(["a", "b"])
        let dictValues = mixed(&b, composite: [Self.composite(0, payload: 2, type: 16), Self.composite(1, payload: 0, type: 1)],
                               pairs: [1, 0])
        let nestedDict = b.slots([.ref(dictKeys), .ref(dictValues)])
        let nestedList = mixed(&b, composite: [Self.composite(5, payload: 0, type: 0), Self.composite(0, payload: 3, type: 2),
                                               Self.composite(0, payload: 4, type: 21)],
                               strings: ["x"], refs: [nestedDict])
        let mixLeaf = mixed(&b, composite: [Self.composite(0, payload: 4, type: 19), Self.composite(0, payload: 2, type: 16), 0],
                            pairs: [1, 1], refs: [nestedList])
        // A chained blob of two parts, a null, and a one-part blob.
        let chain = b.slots([.ref(b.blob([1, 2, 3])), .ref(b.blob([4, 5]))], context: true)
        let bigLeaf = b.slots([.ref(chain), .ref(0), .ref(b.blob([9]))], context: true)
        // A list whose B+tree has an inner node, an empty list, a one-leaf list.
        let inner = b.slots([.tagged(2), .ref(b.ints([1, 2])), .ref(b.ints([3])), .tagged(3)], inner: true)
        let numsLeaf = b.slots([.ref(inner), .ref(0), .ref(b.ints([-7]))])
        // BID32: 1, −2.5, null.
        let bid1: UInt32 = 101 << 23 | 1
        let bidMinus: UInt32 = 1 << 31 | 100 << 23 | 25
        let decLeaf = b.fixed(width: 4, [bid1, bidMinus, 0x7c00_00aa].map(R.littleEndian))
        // Typed links: Other/1, null, Thing/0.
        let tlLeaf = b.ints([2, 2, 0, 0, 1, 1])
        // Dictionary {"k": 7, "z": null} in row 0.
        let dKeys = b.shortStrings(["k", "z"])
        let dValues = mixed(&b, composite: [Self.composite(7, payload: 0, type: 0), 0])
        let dictLeaf = b.slots([.ref(b.slots([.ref(dKeys), .ref(dValues)])), .ref(0), .ref(0)])
        // Links: Other/1, null, unresolved.
        let ownerLeaf = b.ints([2, 0, -1])
        let leafA = b.slots([.tagged(3), .ref(b.ints([1, 0, 1])), .ref(mixLeaf), .ref(bigLeaf), .ref(numsLeaf),
                             .ref(decLeaf), .ref(tlLeaf), .ref(dictLeaf), .ref(ownerLeaf)])
        // A second cluster with explicit keys: one object, key 1000 + 5.
        let emptyMixed = mixed(&b, composite: [0])
        let leafB = b.slots([.ref(b.ints([5])), .ref(b.ints([0])), .ref(emptyMixed), .ref(b.slots([.ref(0)], context: true)),
                             .ref(b.slots([.ref(0)])), .ref(b.fixed(width: 0, [[]])), .ref(b.ints([0, 0])),
                             .ref(b.slots([.ref(0)])), .ref(b.ints([0]))])
        let clusterRoot = b.slots([.ref(b.ints([0, 1000])), .tagged(1), .tagged(4), .ref(leafA), .ref(leafB)], inner: true)
        let thing = b.table(key: 0, columns: columns, cluster: clusterRoot,
                            linkTargets: [0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF, 1])
        return b.finish(tables: [("class_Thing", thing), ("class_Other", other)], format: 24)
    }

    @Test func format24Encodings() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("synthetic24.realm")
            try format24File().write(to: url)
            let file = try RealmFile(url: url)
            let thing = try #require(file.classes.first { $0.name == "Thing" })
            #expect(thing.properties.map(\.name) == ["name", "mix", "big", "nums", "dec", "tl", "dict", "owner"])
            #expect(thing.properties[6].collection == .dictionary && thing.properties[6].isOptional)
            #expect(thing.properties[7].objectType == "Other")
            var objects: [RealmObject] = []
            try file.forEachObject(ofClass: "Thing") { objects.append($0) }
            #expect(objects.map(\.key) == [0, 1, 2, 1005])
            #expect(try file.objectCount(ofClass: "Thing") == 4)
            let other0 = RealmValue.link(RealmLink(className: "Other", objectKey: 0))
            let other1 = RealmValue.link(RealmLink(className: "Other", objectKey: 1))
            let one = RealmDecimal128(low: 1, high: 0x3040_0000_0000_0000)
            let row0: [RealmValue] = [
                .string("beta"),
                .list([.int(5), .string("x"), .dictionary([(key: "a", value: other0), (key: "b", value: .bool(true))])]),
                .data([1, 2, 3, 4, 5]), .list([.int(1), .int(2), .int(3)]), .decimal(one), other1,
                .dictionary([(key: "k", value: .int(7)), (key: "z", value: .null)]), other1,
            ]
            #expect(objects[0].values == row0)
            let row1: [RealmValue] = [.string("alpha"), other1, .null, .list([]), .null, .dictionary([]), .null]
            var row1Values = objects[1].values
            let row1Decimal = row1Values.remove(at: 4)
            #expect(row1Values == row1)
            #expect(row1Decimal == .decimal(RealmDecimal128(low: 25, high: 1 << 63 | 6175 << 49)))
            #expect(objects[2].values[2] == .data([9]))
            #expect(objects[2].values[3] == .list([.int(-7)]))
            #expect(objects[2].values[5] == .link(RealmLink(className: "Thing", objectKey: 0)))
            #expect(objects[2].values[7] == .null, "an unresolved link reads as null")
            #expect(objects[2].values[4] == .null, "Realm's null decimal pattern reads as null")
            #expect(objects[3].values == [.string("alpha"), .null, .null, .list([]), .null, .null, .dictionary([]), .null])
        }
    }

    @Test func bid32DecimalsWiden() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("synthetic24.realm")
            try format24File().write(to: url)
            let file = try RealmFile(url: url)
            var decimals: [String] = []
            try file.forEachObject(ofClass: "Thing") { object in
                if case let .decimal(value) = object.values[4] { decimals.append(value.description) }
            }
            #expect(decimals == ["1", "-2.5"])
        }
    }

    /// A format-22 file: a dictionary stored as its own cluster tree, a link list of the
    /// legacy column type 13 with an unresolved entry, and 16-byte decimals.
    @Test func format22Layouts() throws {
        var b = R()
        let otherColumns = [R.Column(name: "v", type: 0, attributes: 0, key: R.columnKey(leaf: 0, type: 0))]
        let other = b.table(key: 1, columns: otherColumns, cluster: b.slots([.tagged(2), .ref(b.ints([10, 20]))]))
        let columns = [
            R.Column(name: "dict", type: 6 | 2 << 16, attributes: 64 | 16, key: R.columnKey(leaf: 0, type: 6, attributes: 64 | 16)),
            R.Column(name: "links", type: 13, attributes: 32, key: R.columnKey(leaf: 1, type: 13, attributes: 32)),
            R.Column(name: "price", type: 11, attributes: 0, key: R.columnKey(leaf: 2, type: 11)),
        ]
        let dictValues = mixed(&b, composite: [Self.composite(1, payload: 0, type: 0), Self.composite(0, payload: 3, type: 2)],
                               strings: ["zwei"])
        let legacyDict = b.slots([.tagged(2), .ref(b.shortStrings(["one", "two"])), .ref(dictValues)])
        let links = b.ints([1, -2, 0])
        let price = b.fixed(width: 16, [R.littleEndian(UInt64(4_006_962_907)) + R.littleEndian(UInt64(0x303C_0000_0000_0000))])
        let leaf = b.slots([.tagged(1), .ref(b.slots([.ref(legacyDict)])), .ref(b.slots([.ref(links)])), .ref(price)])
        let thing = b.table(key: 0, columns: columns, cluster: leaf, linkTargets: [0x7FFF_FFFF, 1, 0x7FFF_FFFF])
        let data = b.finish(tables: [("class_Thing", thing), ("class_Other", other)], format: 22)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("synthetic22.realm")
            try data.write(to: url)
            let file = try RealmFile(url: url)
            #expect(file.fileFormatVersion == 22)
            let thing = try #require(file.classes.first { $0.name == "Thing" })
            #expect(thing.properties[1].type == .object && thing.properties[1].collection == .list)
            var values: [RealmValue] = []
            try file.forEachObject(ofClass: "Thing") { values = $0.values }
            #expect(values[0] == .dictionary([(key: "one", value: .int(1)), (key: "two", value: .string("zwei"))]))
            #expect(values[1] == .list([.link(RealmLink(className: "Other", objectKey: 1)),
                                        .link(RealmLink(className: "Other", objectKey: 0))]))
            #expect(values[2] == .decimal(RealmDecimal128(low: 4_006_962_907, high: 0x303C_0000_0000_0000)))
            if case let .decimal(price) = values[2] { #expect(price.description == "40069629.07") }
        }
    }

    @Test func cyclicRefsEndInAnError() throws {
        // An inner B+tree node whose child is itself: the depth limit ends the walk.
        var b = R()
        let columns = [R.Column(name: "nums", type: 0, attributes: 32, key: R.columnKey(leaf: 0, type: 0, attributes: 32))]
        let selfRef = b.bytes.count
        _ = b.slots([.tagged(1), .ref(selfRef), .ref(selfRef), .tagged(2)], inner: true)
        let leaf = b.slots([.tagged(1), .ref(b.slots([.ref(selfRef)]))])
        let thing = b.table(key: 0, columns: columns, cluster: leaf)
        let data = b.finish(tables: [("class_Thing", thing)], format: 24)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("cyclic.realm")
            try data.write(to: url)
            #expect(throws: RealmFileError.self) { try readEverything(url) }
        }
    }

    @Test func deepNestingEndsInAnError() throws {
        // Mixed lists nested 300 deep (Realm writes far fewer levels): an error, not a stack overflow.
        var b = R()
        var inner = mixed(&b, composite: [Self.composite(1, payload: 0, type: 0)])
        for _ in 0..<300 {
            inner = mixed(&b, composite: [Self.composite(0, payload: 4, type: 19)], refs: [inner])
        }
        let columns = [R.Column(name: "mix", type: 6, attributes: 16, key: R.columnKey(leaf: 0, type: 6, attributes: 16))]
        let leaf = b.slots([.tagged(1), .ref(inner)])
        let thing = b.table(key: 0, columns: columns, cluster: leaf)
        let data = b.finish(tables: [("class_Thing", thing)], format: 24)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("deep.realm")
            try data.write(to: url)
            #expect(throws: RealmFileError.self) { try readEverything(url) }
        }
    }

    @Test func sharedZeroWidthLeavesEndInAnError() throws {
        // 1,000 cluster children sharing one leaf of 16 million zero-width integers: tiny on
        // disk, billions of values if read; the work budget stops it quickly.
        var b = R()
        let columns = [R.Column(name: "n", type: 0, attributes: 0, key: R.columnKey(leaf: 0, type: 0))]
        let zeros = b.node(widthCode: 0, count: 0xFF_FFFF, payload: [])
        let leaf = b.slots([.tagged(0xFF_FFFF), .ref(zeros)])
        let root = b.slots([.ref(0), .tagged(3), .tagged(0)] + Array(repeating: .ref(leaf), count: 1000), inner: true)
        let thing = b.table(key: 0, columns: columns, cluster: root)
        let data = b.finish(tables: [("class_Thing", thing)], format: 24)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("bomb.realm")
            try data.write(to: url)
            let start = Date()
            #expect(throws: RealmFileError.self) { try readEverything(url) }
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }
}
