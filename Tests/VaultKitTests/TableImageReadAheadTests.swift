import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultKit

final class ReadAheadItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var payload = Data()
    @Persisted var ratio: Double?
    @Persisted var note: String?
}

// A whole class's loop that goes past a quarter of its rows reads the rest of the
// class into the table image in one statement and goes on from the image
// (Results+Iterator.swift, `readAhead`): what it hands out must be what the
// statement would have handed out, row for row, whatever happens in the loop.

@Suite("Table images read ahead")
struct TableImageReadAheadTests {
    static let firstBatch = 64

    /// The index of the first object a whole-class loop over `rows` rows hands
    /// out from the image: the loop reads batches of 64 as objects until it has
    /// read a quarter of the rows (at least one batch), then reads ahead.
    static func readAheadIndex(rows: Int) -> Int {
        let point = max(firstBatch, rows / 4)
        return (point + firstBatch - 1) / firstBatch * firstBatch
    }

    static func populate(_ vault: Vault, count: Int) throws {
        try vault.write {
            for id in 1...count {
                let item = ReadAheadItem()
                item.id = id
                // Short (inline) and long (heap) strings, and non-ASCII text.
                item.name = id % 4 == 0 ? "item \(id) with a name longer than fifteen bytes, é" : "item \(id)"
                item.payload = Data((0..<(id % 9)).map { UInt8(truncatingIfNeeded: $0 &* id) })
                item.ratio = id % 5 == 0 ? nil : (id % 11 == 0 ? Double.nan : Double(id) / 8)
                item.note = id % 3 == 0 ? nil : "note \(id)"
                vault.add(item)
            }
        }
    }

    static func describe(_ item: ReadAheadItem) -> String {
        "\(item.id)|\(item.name)|\(Array(item.payload))|\(item.ratio.map { "\($0)" } ?? "nil")|\(item.note ?? "nil")"
    }

    static func imageCount(_ vault: Vault) -> Int { vault.session.tableImages.count }

    @Test("past a quarter of the class, a loop reads the rest into the image and hands out the statement's objects", arguments: StorageMode.writable)
    func readAheadMatchesStatement(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("read-ahead")
        let vault = try Vault(configuration: mode.configuration(directory, types: [ReadAheadItem.self]))
        try Self.populate(vault, count: 300)
        // A frozen vault has no images: its loop is the statement's, row by row.
        let expected = vault.freeze().objects(ReadAheadItem.self).map(Self.describe)
        #expect(expected.count == 300)
        var seen: [String] = []
        var imagesBefore: [Int] = []
        for item in vault.objects(ReadAheadItem.self) {
            // Counted before the object is read: the objects before the read-ahead come from the statement.
            imagesBefore.append(Self.imageCount(vault))
            seen.append(Self.describe(item))
        }
        #expect(seen == expected)
        let switchIndex = Self.readAheadIndex(rows: 300)
        #expect(switchIndex == 128)
        #expect(imagesBefore[switchIndex - 1] == 0)
        #expect(imagesBefore[switchIndex] == 1)
        #expect(imagesBefore.last == 1)
        // The image answers the next loop and filters with the same objects.
        #expect(vault.objects(ReadAheadItem.self).map(Self.describe) == expected)
        let filtered = vault.objects(ReadAheadItem.self).filter("id > 100 AND ratio == nil")
        #expect(filtered.map(\.id) == Array(stride(from: 105, through: 300, by: 5)))
    }

    @Test("text SQLite holds that is not UTF-8 reads the same from the image as from the statement")
    func invalidUTF8() throws {
        let directory = try TemporaryDirectory("read-ahead-utf8")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ReadAheadItem.self]))
        try Self.populate(vault, count: 200)
        let table = vault.objects(ReadAheadItem.self).schema.tableName
        try vault.write {
            try vault.withDatabase { db in
                // A truncated two-byte sequence and a byte no UTF-8 has, in a row read ahead (150) and in one read as an object (10).
                try db.execute("UPDATE \(table) SET \"name\" = CAST(X'66C328FF' AS TEXT), \"note\" = CAST(X'80' AS TEXT) WHERE \"_vk_id\" IN (10, 150)")
            }
        }
        let expected = vault.freeze().objects(ReadAheadItem.self).map(Self.describe)
        #expect(expected[9].hasPrefix("10|f\u{FFFD}(\u{FFFD}|"))
        #expect(Array(vault.objects(ReadAheadItem.self)).map(Self.describe) == expected)
        #expect(Self.imageCount(vault) == 1)
        #expect(vault.objects(ReadAheadItem.self).filter("id == 150").first.map(Self.describe) == expected[149])
    }

    @Test("a write just before, at or after the read-ahead: the loop visits each row once, with its latest values",
          arguments: [Self.readAheadIndex(rows: 300) - 1, Self.readAheadIndex(rows: 300), Self.readAheadIndex(rows: 300) + 1, 200, 20])
    func writeAroundReadAhead(at index: Int) throws {
        let directory = try TemporaryDirectory("read-ahead-write")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ReadAheadItem.self]))
        try Self.populate(vault, count: 300)
        var seen: [String] = []
        try vault.write {
            for (position, item) in vault.objects(ReadAheadItem.self).enumerated() {
                seen.append(item.id == 250 ? item.name : "\(item.id)")
                guard position == index else { continue }
                if let doomed = vault.object(ofType: ReadAheadItem.self, forPrimaryKey: 240) { vault.delete(doomed) }
                vault.object(ofType: ReadAheadItem.self, forPrimaryKey: 250)?.name = "renamed"
                // Above the largest row id the loop started with: not visited.
                vault.add(ReadAheadItem(value: ["id": 1_000, "name": "added"]))
            }
        }
        let expected = (1...300).filter { $0 != 240 }.map { $0 == 250 ? "renamed" : "\($0)" }
        #expect(seen == expected)
        #expect(vault.objects(ReadAheadItem.self).count == 300)
    }

    @Test("rows that would not fit the images' limit: no image, and the loop reads every row from the statement")
    func overTheLimit() throws {
        let directory = try TemporaryDirectory("read-ahead-limit")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [ReadAheadItem.self]))
        let rowBytes = 200 * 1024
        // 100 rows of 200 KiB (20 MB, over the 16 MiB limit): the first batch's mean size says so.
        try vault.write {
            for id in 1...100 { vault.add(ReadAheadItem(value: ["id": id, "name": String(repeating: "a", count: rowBytes) + "\(id)"])) }
        }
        #expect(TableImageCache.byteLimit < 100 * rowBytes)
        var names: [String] = []
        for item in vault.objects(ReadAheadItem.self) { names.append(item.name) }
        #expect(names.count == 100)
        #expect(names.enumerated().allSatisfy { $1.count == rowBytes + "\($0 + 1)".count && $1.hasSuffix("a\($0 + 1)") })
        #expect(Self.imageCount(vault) == 0)

        // Small rows first, large ones after: the read-ahead is tried, passes the limit, and the loop goes on with the statement.
        let other = try TemporaryDirectory("read-ahead-limit-late")
        let second = try Vault(configuration: StorageMode.encryptedFile.configuration(other, types: [ReadAheadItem.self]))
        let large = 500 * 1024
        try second.write {
            for id in 1...Self.firstBatch { second.add(ReadAheadItem(value: ["id": id, "name": "small \(id)"])) }
            for id in (Self.firstBatch + 1)...(Self.firstBatch + 40) {
                second.add(ReadAheadItem(value: ["id": id, "name": String(repeating: "b", count: large) + "\(id)"]))
            }
        }
        var ids: [Int] = []
        var lengths: [Int] = []
        for item in second.objects(ReadAheadItem.self) {
            ids.append(item.id)
            lengths.append(item.name.count)
        }
        #expect(ids == Array(1...(Self.firstBatch + 40)))
        #expect(lengths == ids.map { $0 <= Self.firstBatch ? "small \($0)".count : large + "\($0)".count })
        #expect(Self.imageCount(second) == 0)
    }

    @Test("a column appends borrowed values exactly as it appends their copies")
    func borrowedAppendsAgree() {
        var generator = SeededGenerator(state: 26)
        for _ in 0..<200 {
            var borrowed = ImageColumn(), copied = ImageColumn()
            // Each run favours one kind, with NULLs and values of other kinds among them.
            let favoured = Int.random(in: 0..<4, using: &generator)
            var values: [DatabaseValue] = []
            for _ in 0..<Int.random(in: 1..<40, using: &generator) {
                let kind = Int.random(in: 0..<10, using: &generator) < 7 ? favoured : Int.random(in: 0..<5, using: &generator)
                let bytes = (0..<Int.random(in: 0..<24, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                switch kind {
                case 0: values.append(.integer(Int64.random(in: Int64.min...Int64.max, using: &generator)))
                case 1: values.append(.real(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))))
                case 2: values.append(.blob(Data(bytes)))   // (stands in for text bytes too, below)
                case 3: values.append(.null)
                default: values.append(.text("t\(bytes.count)é"))
                }
            }
            for value in values {
                switch value {
                case .blob(let data) where data.count % 2 == 0:
                    // Even-length byte runs go in as text: arbitrary bytes, often not UTF-8.
                    data.withUnsafeBytes { raw in
                        let text = raw.bindMemory(to: UInt8.self)
                        borrowed.append(borrowed: .text(text))
                        copied.append(DatabaseValue(copying: .text(text)))
                    }
                case .blob(let data):
                    data.withUnsafeBytes { raw in
                        borrowed.append(borrowed: .blob(raw))
                        copied.append(DatabaseValue(copying: .blob(raw)))
                    }
                case .text(var text):
                    text.withUTF8 { borrowed.append(borrowed: .text($0)) }
                    copied.append(value)
                case .integer(let number):
                    borrowed.append(borrowed: .integer(number))
                    copied.append(value)
                case .real(let number):
                    borrowed.append(borrowed: .real(number))
                    copied.append(value)
                case .null:
                    borrowed.append(borrowed: .null)
                    copied.append(value)
                }
            }
            #expect(borrowed.count == values.count)
            #expect(borrowed.kind == copied.kind)
            #expect(borrowed.byteCount == copied.byteCount)
            let same = (0..<values.count).allSatisfy { row in
                let (left, right) = (borrowed.value(at: row), copied.value(at: row))
                // NaN is not equal to itself: compare the bits.
                if case .real(let a) = left, case .real(let b) = right { return a.bitPattern == b.bitPattern }
                return left == right
            }
            #expect(same)
        }
    }
}
