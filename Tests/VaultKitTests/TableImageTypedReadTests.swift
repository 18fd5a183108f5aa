import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

// A getter on an object made from a table image takes an integer, a real or a
// text straight from the image's column, without the `DatabaseValue` the
// general path builds, and falls back to that path for anything else (a NULL,
// a column holding values of several kinds, a blob, a type the typed reads do
// not cover). Either way the value must be the one an object read through a
// statement gives: these tests compare the two, property by property, over
// values chosen to reach every branch.

enum TypedImageLevel: Int, PersistableEnum { case low = 1, middle = 5, high = 9 }
enum TypedImageColour: String, PersistableEnum { case red, green, blue }

final class TypedImageItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var small: Int8 = 0
    @Persisted var wide: Int64 = 0
    @Persisted var flag = false
    @Persisted var ratio: Float = 0
    @Persisted var amount = 0.0
    @Persisted var label = ""
    @Persisted var moment = Date(timeIntervalSince1970: 0)
    @Persisted var bytes = Data()
    @Persisted var token = UUID()
    @Persisted var objectID = ObjectId.generate()
    @Persisted var level = TypedImageLevel.low
    @Persisted var colour = TypedImageColour.red
    @Persisted var maybeCount: Int?
    @Persisted var maybeAmount: Double?
    @Persisted var maybeLabel: String?
    @Persisted var maybeFlag: Bool?
    @Persisted var maybeMoment: Date?
    @Persisted var maybeLevel: TypedImageLevel?
    @Persisted(indexed: true) var indexedName = ""
}

@Suite("Typed reads from table images")
struct TableImageTypedReadTests {
    static let doubles: [Double] = [0, -0.0, 1.5, -2.25, .infinity, -.infinity, .nan, Double(bitPattern: 0x7FF8_0000_0000_0ABC),
                                    .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e300, 123_456.789]
    static let texts = ["", "a", "plain ascii text", "naïve café ☕️", "漢字かな交じり", "line\nbreak", "nul\u{0}inside",
                        String(repeating: "long text ", count: 40), "🏳️‍🌈 flags"]

    /// `count` items whose values cycle through edge cases, with every optional nil on some rows.
    static func populate(_ vault: Vault, count: Int) throws {
        try vault.write {
            for id in 1...count {
                let item = TypedImageItem()
                item.id = id
                item.small = [Int8.min, -1, 0, 1, Int8.max][id % 5]
                item.wide = [Int64.min, -7, 0, 42, Int64.max][id % 5]
                item.flag = id % 2 == 0
                item.ratio = [Float(0), -0.0, 3.5, .nan, .infinity, -1e-30][id % 6]
                item.amount = doubles[id % doubles.count]
                item.label = texts[id % texts.count]
                item.moment = Date(timeIntervalSinceReferenceDate: Double(id) * 86_400.125 - 1e9)
                item.bytes = Data((0..<(id % 4 * 9)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ id) })
                item.token = UUID()
                item.level = [TypedImageLevel.low, .middle, .high][id % 3]
                item.colour = [TypedImageColour.red, .green, .blue][id % 3]
                item.maybeCount = id % 3 == 0 ? nil : id * 1_000
                item.maybeAmount = id % 4 == 0 ? nil : doubles[(id * 5) % doubles.count]
                item.maybeLabel = id % 5 == 0 ? nil : texts[(id * 3) % texts.count]
                item.maybeFlag = id % 3 == 1 ? nil : id % 2 == 1
                item.maybeMoment = id % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(id))
                item.maybeLevel = id % 4 == 2 ? nil : .high
                item.indexedName = "name \(id % 17)"
                vault.add(item)
            }
        }
    }

    /// Every property of `item`, floats by their bits (so that NaNs and -0.0 compare as stored).
    static func describe(_ item: TypedImageItem) -> [String] {
        [
            "\(item.id)", "\(item.small)", "\(item.wide)", "\(item.flag)", "\(item.ratio.bitPattern)",
            "\(item.amount.bitPattern)", item.label, "\(item.moment.timeIntervalSinceReferenceDate.bitPattern)",
            item.bytes.base64EncodedString(), item.token.uuidString, item.objectID.stringValue, "\(item.level)",
            "\(item.colour)", "\(item.maybeCount.map(String.init) ?? "nil")", "\(item.maybeAmount.map { String($0.bitPattern) } ?? "nil")",
            item.maybeLabel ?? "<nil>", "\(item.maybeFlag.map(String.init) ?? "nil")",
            "\(item.maybeMoment.map { String($0.timeIntervalSinceReferenceDate.bitPattern) } ?? "nil")",
            "\(item.maybeLevel.map { "\($0)" } ?? "nil")", item.indexedName,
        ]
    }

    @Test("every property read from an image equals the same property read through a statement", arguments: StorageMode.writable)
    func imageReadsEqualStatementReads(mode: StorageMode) throws {
        let directory = try TemporaryDirectory("typed-image-reads")
        let vault = try Vault(configuration: mode.configuration(directory, types: [TypedImageItem.self]))
        let count = 90
        try Self.populate(vault, count: count)
        // A loop over the class at a version builds its image; the next loop's objects read from it.
        _ = Array(vault.objects(TypedImageItem.self))
        let fromImage = Array(vault.objects(TypedImageItem.self))
        #expect(fromImage.count == count)
        #expect(fromImage.allSatisfy { $0.manager?.image != nil && $0.manager?.buffer == nil })
        for item in fromImage {
            let read = try #require(vault.object(ofType: TypedImageItem.self, forPrimaryKey: item.id))
            #expect(read.manager?.buffer != nil)
            #expect(Self.describe(item) == Self.describe(read))
        }
        // Still reading from the image after all those reads.
        #expect(fromImage.allSatisfy { $0.manager?.image != nil })
        // The NaN with a payload went through the general path (its column holds text besides reals) and kept its bits.
        let payloadNaN = try #require(fromImage.first { $0.amount.bitPattern == 0x7FF8_0000_0000_0ABC })
        #expect(payloadNaN.amount.isNaN)
    }

    @Test("filtered objects from an image read their values, and the filter agrees with SQLite's")
    func filteredImageReads() throws {
        let directory = try TemporaryDirectory("typed-image-filter")
        let vault = try Vault(configuration: StorageMode.encryptedFile.configuration(directory, types: [TypedImageItem.self]))
        try Self.populate(vault, count: 60)
        _ = Array(vault.objects(TypedImageItem.self))
        let matches = Array(vault.objects(TypedImageItem.self).filter("small >= 0 AND maybeCount != nil"))
        #expect(!matches.isEmpty)
        #expect(matches.allSatisfy { $0.manager?.image != nil })
        let expected = (1...60).filter { [Int8.min, -1, 0, 1, Int8.max][$0 % 5] >= 0 && $0 % 3 != 0 }
        #expect(matches.map(\.id) == expected)
        for item in matches {
            let read = try #require(vault.object(ofType: TypedImageItem.self, forPrimaryKey: item.id))
            #expect(Self.describe(item) == Self.describe(read))
        }
    }

    @Test("options given to @Persisted reach the schema although the wrapper does not keep them")
    func optionsReachTheSchema() throws {
        let schema = try #require(TypedImageItem.sharedSchema())
        #expect(schema.primaryKeyProperty?.name == "id")
        let indexed = schema.properties.filter(\.isIndexed).map(\.name)
        #expect(indexed.contains("indexedName"))
        #expect(!indexed.contains("label"))
        // Objects made after discovery are unaffected by it.
        let item = TypedImageItem()
        item.indexedName = "x"
        #expect(item.indexedName == "x")
    }
}
