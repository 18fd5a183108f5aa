import Foundation
import Testing
@testable import RealmFileReader
import VaultTestSupport

/// Bit patterns that decode to no value Realm can have written are refused with
/// `RealmFileError.invalidValue` naming the class, object and property — never altered
/// (a string is not repaired with U+FFFD, a non-canonical decimal not read as zero, an
/// out-of-range nanosecond count not carried into the seconds) (issue #63).
@Suite("Values Realm cannot have written are refused")
struct InvalidValueTests {
    typealias R = SyntheticRealm

    static func column(_ name: String, type: Int, attributes: Int = 0) -> R.Column {
        R.Column(name: name, type: type, attributes: attributes, key: R.columnKey(leaf: 0, type: type, attributes: attributes))
    }

    /// A file of one object of class `Thing` whose one column is `column`, its leaf built by `leaf`.
    static func file(_ column: R.Column, _ leaf: (inout R) -> Int) -> Data {
        BoundedCountTests.file([column]) { b in [.tagged(1), .ref(leaf(&b))] }
    }

    /// A mixed leaf of one element (realm-core `array_mixed.hpp`).
    static func mixedLeaf(_ b: inout R, composite: Int64, pairs: [Int64]? = nil, strings: [[UInt8]?]? = nil) -> Int {
        let c = b.ints([composite])
        let p = pairs.map { b.ints($0) } ?? 0
        let s = strings.map { b.shortStringBytes($0) } ?? 0
        return b.slots([.ref(c), .ref(0), .ref(p), .ref(s), .ref(0)])
    }

    /// A mixed composite element: value, payload array, data type.
    static func composite(_ value: Int64, payload: Int64, type: Int64) -> Int64 {
        value << 8 | payload << 5 | (type + 1)
    }

    /// The single value of the file's one object.
    static func value(_ data: Data) throws -> RealmValue? {
        try BoundedCountTests.read(data)["Thing"]?.first?.values.first
    }

    /// Reads `data`, which must be refused as an invalid value of Thing's object 0, property `property`.
    private func expectInvalid(_ data: Data, property: String, reason: String? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(throws: RealmFileError.self, sourceLocation: sourceLocation) { try Self.value(data) }
        guard case let .invalidValue(className, objectKey, name, message) = error else {
            Issue.record("expected an invalid value, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(className == "Thing" && objectKey == 0 && name == property, "\(error)", sourceLocation: sourceLocation)
        if let reason { #expect(message == reason, sourceLocation: sourceLocation) }
        #expect(error.description.contains("Thing") && error.description.contains(property), sourceLocation: sourceLocation)
    }

    static let utf8Reason = "a string that is not valid UTF-8"

    @Test("a string that is not valid UTF-8 is refused, not repaired with U+FFFD",
          arguments: [[0x61, 0xFF, 0x62], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98], [0x80]] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) throws {
        let name = Self.column("name", type: 2)
        try expectInvalid(Self.file(name) { b in b.shortStringBytes([bytes]) }, property: "name", reason: Self.utf8Reason)
        // In a mixed value too.
        let mix = Self.column("mix", type: 6, attributes: 16)
        let mixed = Self.file(mix) { b in
            Self.mixedLeaf(&b, composite: Self.composite(0, payload: 3, type: 2), strings: [bytes])
        }
        try expectInvalid(mixed, property: "mix", reason: Self.utf8Reason)
    }

    @Test func validUTF8ReadsExactly() throws {
        let text = "é😀日本\u{0301}"
        let name = Self.column("name", type: 2)
        #expect(try Self.value(Self.file(name) { b in b.shortStringBytes([Array(text.utf8)]) }) == .string(text))
    }

    @Test("a date whose nanoseconds are out of range is refused, not carried into the seconds")
    func datesOutOfRange() throws {
        let at = Self.column("at", type: 8)
        func date(seconds: Int64, nanoseconds: Int64) -> Data {
            Self.file(at) { b in
                b.slots([.ref(b.ints([Int64.max, seconds])), .ref(b.ints([nanoseconds]))])
            }
        }
        #expect(try Self.value(date(seconds: -1, nanoseconds: -500_000_000)) == .date(seconds: -2, nanoseconds: 500_000_000))
        #expect(try Self.value(date(seconds: 5, nanoseconds: 999_999_999)) == .date(seconds: 5, nanoseconds: 999_999_999))
        // Signs that differ are read as their sum, as Realm Core reads them.
        #expect(try Self.value(date(seconds: 5, nanoseconds: -1)) == .date(seconds: 4, nanoseconds: 999_999_999))
        try expectInvalid(date(seconds: 5, nanoseconds: 2_000_000_000), property: "at")
        try expectInvalid(date(seconds: -5, nanoseconds: -1_000_000_000), property: "at")
        try expectInvalid(date(seconds: Int64.min, nanoseconds: -1), property: "at")
        // In a mixed value too.
        let mix = Self.column("mix", type: 6, attributes: 16)
        try expectInvalid(Self.file(mix) { b in
            Self.mixedLeaf(&b, composite: Self.composite(0, payload: 2, type: 8), pairs: [5, -1_000_000_000])
        }, property: "mix")
    }

    @Test("a decimal whose encoding is not canonical (IEEE 754 reads it as zero) is refused")
    func nonCanonicalDecimals() throws {
        let dec = Self.column("dec", type: 11)
        func bid128(low: UInt64, high: UInt64) -> Data {
            Self.file(dec) { b in b.fixed(width: 16, [R.littleEndian(low) + R.littleEndian(high)]) }
        }
        // 10³⁴ − 1 is the largest coefficient; 10³⁴ is not canonical. Exponent 0 is 0x3040… in the high word.
        let largest = try #require(try Self.value(bid128(low: 0x378d_8e63_ffff_ffff, high: 0x3041_ed09_bead_87c0)))
        #expect(largest == .decimal(RealmDecimal128(low: 0x378d_8e63_ffff_ffff, high: 0x3041_ed09_bead_87c0)))
        let reason = RealmDecimal128.nonCanonicalReason
        try expectInvalid(bid128(low: 0x378d_8e64_0000_0000, high: 0x3041_ed09_bead_87c0), property: "dec", reason: reason)
        // The "11" form of a finite BID128 always spells a coefficient over 34 digits.
        try expectInvalid(bid128(low: 1, high: 0x6c00_0000_0000_0000), property: "dec", reason: reason)
        // BID32 in format 24's narrow leaves: the "11" form with a coefficient of 10⁷ or more.
        try expectInvalid(Self.file(dec) { b in b.fixed(width: 4, [R.littleEndian(UInt32(0x601f_ffff))]) },
                          property: "dec", reason: reason)
        // In a mixed value too.
        let mix = Self.column("mix", type: 6, attributes: 16)
        try expectInvalid(Self.file(mix) { b in
            Self.mixedLeaf(&b, composite: Self.composite(0, payload: 2, type: 11),
                           pairs: [Int64(bitPattern: 0x378d_8e64_0000_0000), Int64(bitPattern: 0x3041_ed09_bead_87c0)])
        }, property: "mix", reason: reason)
    }

    @Test("a Boolean stored as neither 0, 1 nor (when nullable) 3 is refused")
    func booleansOutOfRange() throws {
        let flag = Self.column("flag", type: 1, attributes: 16)
        #expect(try Self.value(Self.file(flag) { b in b.ints([3]) }) == .null)
        #expect(try Self.value(Self.file(flag) { b in b.ints([1]) }) == .bool(true))
        try expectInvalid(Self.file(flag) { b in b.ints([2]) }, property: "flag")
        let mix = Self.column("mix", type: 6, attributes: 16)
        try expectInvalid(Self.file(mix) { b in Self.mixedLeaf(&b, composite: Self.composite(2, payload: 0, type: 1)) },
                          property: "mix")
    }

    @Test("a mixed ObjectId of other than 12 bytes is refused, not cut to 12")
    func mixedObjectIdOfTheWrongLength() throws {
        let mix = Self.column("mix", type: 6, attributes: 16)
        let twelve = [UInt8](1...12)
        #expect(try Self.value(Self.file(mix) { b in
            Self.mixedLeaf(&b, composite: Self.composite(0, payload: 3, type: 15), strings: [twelve])
        }) == .objectId(twelve))
        try expectInvalid(Self.file(mix) { b in
            Self.mixedLeaf(&b, composite: Self.composite(0, payload: 3, type: 15), strings: [twelve + [13]])
        }, property: "mix")
    }

    @Test("a table or column name that is not valid UTF-8 is refused")
    func namesMustBeUTF8() throws {
        var data = BoundedCountTests.file([Self.column("Qz", type: 0)]) { b in [.tagged(1), .ref(b.ints([1]))] }
        let range = try #require(data.range(of: Data("Qz".utf8)))
        data.replaceSubrange(range, with: Data([0xFF, 0x7A]))
        let error = try #require(throws: RealmFileError.self) { try BoundedCountTests.read(data) }
        guard case let .corrupt(message) = error else {
            Issue.record("expected a corruption, got \(error)")
            return
        }
        #expect(message.contains("UTF-8"), "\(message)")
    }
}
