import Foundation
import Testing
@testable import RealmFileReader
import VaultTestSupport

/// Counts read from a node header are bounded by the bytes that hold them and by the node
/// sizes Realm writes (1,000 elements a B+tree node, 256 objects a cluster), and inner nodes'
/// recorded sizes must match their leaves: a changed count is refused quickly, never read as
/// a million invented elements (issue #63).
@Suite("Counts bounded by the file")
struct BoundedCountTests {
    typealias R = SyntheticRealm

    /// `1,200,000` as a node header's 24-bit big-endian count.
    static let amplifiedCount: [UInt8] = [0x12, 0x4F, 0x80]

    /// A format-24 file whose one class `Thing` has `columns` and the objects of one cluster
    /// leaf, whose slots `build` returns (the row count first, then one column leaf each).
    static func file(_ columns: [R.Column], _ build: (inout R) -> [R.Slot]) -> Data {
        var b = R()
        let slots = build(&b)
        let thing = b.table(key: 0, columns: columns, cluster: b.slots(slots))
        return b.finish(tables: [("class_Thing", thing)], format: 24)
    }

    /// Every object of every class of the file `data`.
    static func read(_ data: Data) throws -> [String: [RealmObject]] {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("thing.realm")
            try data.write(to: url)
            return try readAll(url)
        }
    }

    static func readAll(_ url: URL) throws -> [String: [RealmObject]] {
        let file = try RealmFile(url: url)
        var result: [String: [RealmObject]] = [:]
        for cls in file.classes {
            var objects: [RealmObject] = []
            try file.forEachObject(ofClass: cls.name) { objects.append($0) }
            result[cls.name] = objects
        }
        return result
    }

    /// Reads `data`, which must be refused as corrupt with a message holding `fragment`, in a few seconds at most.
    private func expectCorrupt(_ data: Data, mentioning fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let start = Date()
        let error = try #require(throws: RealmFileError.self, sourceLocation: sourceLocation) { try Self.read(data) }
        guard case let .corrupt(message) = error else {
            Issue.record("expected a corruption, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(message.contains(fragment), "\(message)", sourceLocation: sourceLocation)
        #expect(Date().timeIntervalSince(start) < 5, sourceLocation: sourceLocation)
    }

    static let intSet = R.Column(name: "s", type: 0, attributes: 128, key: R.columnKey(leaf: 0, type: 0, attributes: 128))
    static let intList = R.Column(name: "l", type: 0, attributes: 32, key: R.columnKey(leaf: 0, type: 0, attributes: 32))
    static let int = R.Column(name: "n", type: 0, attributes: 0, key: R.columnKey(leaf: 0, type: 0))

    @Test("a set leaf of zero-width elements claiming 1.2 million of them (a 3-byte change) is refused fast")
    func zeroWidthSetLeaf() throws {
        let data = Self.file([Self.intSet]) { b in
            let leaf = b.node(widthCode: 0, count: 1_200_000, payload: [])
            return [.tagged(1), .ref(b.slots([.ref(leaf)]))]
        }
        try expectCorrupt(data, mentioning: "1200000")
    }

    @Test("a list leaf of 5,000 one-bit elements (more than a B+tree leaf holds) is refused")
    func oversizedListLeaf() throws {
        let data = Self.file([Self.intList]) { b in
            let leaf = b.node(widthCode: 1, count: 5000, payload: [UInt8](repeating: 0xA5, count: 625))
            return [.tagged(1), .ref(b.slots([.ref(leaf)]))]
        }
        try expectCorrupt(data, mentioning: "5000")
    }

    @Test("a B+tree inner node whose recorded size is not its leaves' is refused")
    func innerNodeSizeMustMatch() throws {
        let consistent = Self.file([Self.intList]) { b in
            let inner = b.slots([.tagged(2), .ref(b.ints([1, 2])), .ref(b.ints([3])), .tagged(3)], inner: true)
            return [.tagged(1), .ref(b.slots([.ref(inner)]))]
        }
        #expect(try Self.read(consistent)["Thing"]?.first?.values == [.list([.int(1), .int(2), .int(3)])])
        let inflated = Self.file([Self.intList]) { b in
            let inner = b.slots([.tagged(2), .ref(b.ints([1, 2])), .ref(b.ints([3])), .tagged(5)], inner: true)
            return [.tagged(1), .ref(b.slots([.ref(inner)]))]
        }
        try expectCorrupt(inflated, mentioning: "records 5 elements")
    }

    @Test("a cluster of 300 objects (Realm splits at 256) is refused")
    func oversizedCluster() throws {
        let data = Self.file([Self.int]) { b in
            [.tagged(300), .ref(b.ints((0..<300).map { Int64($0) }))]
        }
        try expectCorrupt(data, mentioning: "300 objects")
    }

    @Test("a cluster inner node whose recorded size is not its leaves' is refused")
    func clusterSubtreeSizeMustMatch() throws {
        func file(size: Int64) -> Data {
            var b = R()
            let first = b.slots([.tagged(2), .ref(b.ints([10, 20]))])
            let second = b.slots([.tagged(1), .ref(b.ints([30]))])
            let root = b.slots([.ref(0), .tagged(1), .tagged(size), .ref(first), .ref(second)], inner: true)
            let thing = b.table(key: 0, columns: [Self.int], cluster: root)
            return b.finish(tables: [("class_Thing", thing)], format: 24)
        }
        let objects = try #require(try Self.read(file(size: 3))["Thing"])
        #expect(objects.map(\.key) == [0, 1, 256])
        try expectCorrupt(file(size: 9), mentioning: "records 9 objects")
    }

    @Test("the fixture's set of one false, its count changed to 1.2 million, is refused fast")
    func amplifiedSetInAFixture() throws {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.url("alltypes.realm")))
        // AllTypes object 1's set_bool: a zero-width leaf holding one element (found with a
        // walk of the file; the fixture never changes).
        let ref = 0x6038
        #expect(bytes[ref..<ref + 8].elementsEqual([0x41, 0x41, 0x41, 0x41, 0x00, 0x00, 0x00, 0x01]))
        bytes.replaceSubrange(ref + 5..<ref + 8, with: Self.amplifiedCount)
        try expectCorrupt(Data(bytes), mentioning: "1200000")
    }

    /// Leaf nodes of the fixture whose count can become 1.2 million with the payload still
    /// inside the file, changed one at a time (a seeded sample): each copy is refused, or
    /// reads exactly as the original (a node no object reaches, or a column leaf of which
    /// only the cluster's objects are read) — never as other data.
    @Test func amplifiedCountsInAFixtureAreRefusedOrHarmless() throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.url("alltypes.realm")))
        let expected = try Self.readAll(Fixtures.url("alltypes.realm"))
        var candidates: [Int] = []
        for ref in stride(from: 24, to: original.count - 8, by: 8)
        where original[ref..<ref + 4].elementsEqual([0x41, 0x41, 0x41, 0x41]) {
            let flags = original[ref + 4]
            let count = Int(original[ref + 5]) << 16 | Int(original[ref + 6]) << 8 | Int(original[ref + 7])
            guard flags & 0x80 == 0, (1...1000).contains(count),
                  let length = Node.payloadLength(flags: flags, count: 1_200_000),
                  length <= original.count - ref - Node.headerSize else { continue }
            candidates.append(ref)
        }
        #expect(candidates.count > 100)
        var generator = SplitMix64(seed: 63)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("amplified.realm")
            for _ in 0..<60 where !candidates.isEmpty {
                let ref = candidates[Int(generator.next() % UInt64(candidates.count))]
                var bytes = original
                bytes.replaceSubrange(ref + 5..<ref + 8, with: Self.amplifiedCount)
                try Data(bytes).write(to: url)
                let start = Date()
                do {
                    let objects = try Self.readAll(url)
                    #expect(objects == expected, "node 0x\(String(ref, radix: 16)): a changed count was read as other data")
                } catch is RealmFileError {
                    // Refused: fine.
                }
                #expect(Date().timeIntervalSince(start) < 5, "node 0x\(String(ref, radix: 16))")
            }
        }
    }

    @Test("a primary key recorded for a column the table does not have is refused")
    func primaryKeyOfNoColumn() throws {
        var b = R()
        let leaf = b.slots([.tagged(1), .ref(b.ints([4]))])
        let thing = b.table(key: 0, columns: [Self.int], cluster: leaf, primaryKey: R.columnKey(leaf: 5, type: 0))
        let data = b.finish(tables: [("class_Thing", thing)], format: 24)
        try expectCorrupt(data, mentioning: "primary key")
    }
}
