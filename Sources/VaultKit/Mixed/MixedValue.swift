import Foundation
import VaultCore

// MARK: - How a mixed value is stored
//
// An `AnyVaultValue` property is one column (and an element of a mixed list,
// set or map is one side-table `value`), declared BLOB so that SQLite keeps
// every value exactly as bound and converts nothing. The value's type travels
// with it:
//
//   none            NULL
//   int             INTEGER            the three types SQLite already tells
//   double          REAL               apart, stored natively, so that the
//   string          TEXT               common comparisons are plain SQL values
//   everything else BLOB: one tag byte, then the payload
//     0x01 bool      1 byte
//     0x02 float     4 bytes, the IEEE bit pattern, big-endian
//     0x03 data      the bytes
//     0x04 date      8 bytes, the bit pattern of timeIntervalSinceReferenceDate (Date's own storage)
//     0x05 objectId  12 bytes
//     0x06 decimal   the decimal's text, as Decimal columns store it (Realm's
//                    spelling for a value parsed from text: "1.50" keeps its zero)
//     0x11 double    8 bytes, the bit pattern: only NaN, which SQLite cannot
//                    store as a REAL (it would become NULL)
//     0x07 uuid      16 bytes
//     0x08 link      8-byte row id, big-endian, then the target class's name in UTF-8
//     0x09 list      the elements, nested encoding (below)
//     0x0A dict      the entries sorted by key, nested encoding
//
// Inside a list or dictionary every element carries its own tag: 0x00 none,
// 0x10 int (8 bytes), 0x11 double (8 bytes), 0x12 string (varint length,
// UTF-8), the scalar tags above with their payloads (data, decimal and link
// prefixed by a varint length), and 0x09/0x0A with a varint count. Dictionary
// entries are (varint key length, key, element), sorted by key, so equal
// dictionaries encode to equal bytes and `value == %@` with a dictionary is a
// byte comparison. Nesting is limited to 100 levels (Realm's limit); the
// decoder refuses deeper or truncated input instead of trusting it.
//
// A link names its class because a mixed value may point at any class. It is
// not a foreign key: deleting an object rewrites the mixed values that link to
// it (Vault+Mixed), top-level and nested, so no stale row id survives to be
// reused by a later object. Queries never decode links except to compare them.

/// The storage-level form of a mixed value: what the codec, the SQL functions
/// and the comparisons work on. Links are (class, row id), never objects.
/// (SPI for `VaultSync`, which carries mixed values between devices.)
@_spi(VaultSync)
public indirect enum MixedValue: Equatable, Sendable {
    case none
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Double)
    case objectId([UInt8])
    case decimal(Decimal128)
    case uuid(UUID)
    case link(className: String, rowID: Int64)
    case list([MixedValue])
    case dictionary([(key: String, value: MixedValue)])

    public static func == (a: MixedValue, b: MixedValue) -> Bool {
        switch (a, b) {
        case (.none, .none): true
        case (.int(let x), .int(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.float(let x), .float(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.data(let x), .data(let y)): x == y
        case (.date(let x), .date(let y)): x == y
        case (.objectId(let x), .objectId(let y)): x == y
        case (.decimal(let x), .decimal(let y)): x == y
        case (.uuid(let x), .uuid(let y)): x == y
        case (.link(let c1, let r1), .link(let c2, let r2)): c1 == c2 && r1 == r2
        case (.list(let x), .list(let y)): x == y
        case (.dictionary(let x), .dictionary(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// Realm's limit on nested collections in a mixed value.
    static let maximumDepth = 100

    /// How many collection levels the value has (0 for a scalar).
    var depth: Int {
        switch self {
        case .list(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.map(\.value.depth).max() ?? 0)
        default: 0
        }
    }

    var isCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }
}

/// Why stored bytes are not a mixed value (a corrupt or foreign column).
struct MixedDecodingError: Swift.Error {}

/// The byte-level codec of the layout above.
enum MixedCodec {
    enum Tag: UInt8 {
        case none = 0x00, bool = 0x01, float = 0x02, data = 0x03, date = 0x04, objectId = 0x05
        case decimal = 0x06, uuid = 0x07, link = 0x08, list = 0x09, dictionary = 0x0A
        case int = 0x10, double = 0x11, string = 0x12
    }

    // MARK: Top level

    /// The column value of a mixed value.
    static func encode(_ value: MixedValue) -> DatabaseValue {
        switch value {
        case .none: return .null
        case .int(let i): return .integer(i)
        case .double(let d) where !d.isNaN: return .real(d)
        case .string(let s): return .text(s)
        case .double(let d):
            // SQLite stores a NaN REAL as NULL: NaN is kept as a BLOB, tag 0x11 and its bit pattern.
            var bytes = [Tag.double.rawValue]
            appendBigEndian(d.bitPattern, bytes: 8, to: &bytes)
            return .blob(Data(bytes))
        default:
            var bytes: [UInt8] = []
            appendTopLevel(value, to: &bytes)
            return .blob(Data(bytes))
        }
    }

    /// The mixed value of a column value; throws on bytes that are not one.
    static func decode(_ stored: DatabaseValue) throws(MixedDecodingError) -> MixedValue {
        switch stored {
        case .null: return .none
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let data):
            var reader = Reader(bytes: [UInt8](data))
            let value = try reader.topLevel()
            guard reader.isAtEnd else { throw MixedDecodingError() }
            return value
        }
    }

    private static func appendTopLevel(_ value: MixedValue, to bytes: inout [UInt8]) {
        switch value {
        case .bool(let b): bytes += [Tag.bool.rawValue, b ? 1 : 0]
        case .float(let f): bytes.append(Tag.float.rawValue); appendBigEndian(UInt64(f.bitPattern), bytes: 4, to: &bytes)
        case .data(let d): bytes.append(Tag.data.rawValue); bytes += d
        case .date(let t): bytes.append(Tag.date.rawValue); appendBigEndian(t.bitPattern, bytes: 8, to: &bytes)
        case .objectId(let o): bytes.append(Tag.objectId.rawValue); bytes += o
        case .decimal(let d): bytes.append(Tag.decimal.rawValue); bytes += Array(d.exactText.utf8)
        case .uuid(let u): bytes.append(Tag.uuid.rawValue); bytes += withUnsafeBytes(of: u.uuid) { Array($0) }
        case .link(let className, let rowID):
            bytes.append(Tag.link.rawValue)
            appendBigEndian(UInt64(bitPattern: rowID), bytes: 8, to: &bytes)
            bytes += Array(className.utf8)
        case .list(let elements):
            bytes.append(Tag.list.rawValue)
            appendVarint(elements.count, to: &bytes)
            for element in elements { appendNested(element, to: &bytes) }
        case .dictionary(let entries):
            bytes.append(Tag.dictionary.rawValue)
            appendEntries(entries, to: &bytes)
        case .none, .int, .double, .string:
            appendNested(value, to: &bytes)
        }
    }

    // MARK: Nested

    private static func appendNested(_ value: MixedValue, to bytes: inout [UInt8]) {
        switch value {
        case .none: bytes.append(Tag.none.rawValue)
        case .int(let i): bytes.append(Tag.int.rawValue); appendBigEndian(UInt64(bitPattern: i), bytes: 8, to: &bytes)
        case .double(let d): bytes.append(Tag.double.rawValue); appendBigEndian(d.bitPattern, bytes: 8, to: &bytes)
        case .string(let s): bytes.append(Tag.string.rawValue); appendLengthPrefixed(Array(s.utf8), to: &bytes)
        case .bool, .float, .date, .objectId, .uuid: appendTopLevel(value, to: &bytes)
        case .data(let d): bytes.append(Tag.data.rawValue); appendLengthPrefixed(Array(d), to: &bytes)
        case .decimal(let d): bytes.append(Tag.decimal.rawValue); appendLengthPrefixed(Array(d.exactText.utf8), to: &bytes)
        case .link(let className, let rowID):
            bytes.append(Tag.link.rawValue)
            appendBigEndian(UInt64(bitPattern: rowID), bytes: 8, to: &bytes)
            appendLengthPrefixed(Array(className.utf8), to: &bytes)
        case .list, .dictionary: appendTopLevel(value, to: &bytes)
        }
    }

    private static func appendEntries(_ entries: [(key: String, value: MixedValue)], to bytes: inout [UInt8]) {
        let sorted = entries.sorted { $0.key < $1.key }
        appendVarint(sorted.count, to: &bytes)
        for (key, value) in sorted {
            appendLengthPrefixed(Array(key.utf8), to: &bytes)
            appendNested(value, to: &bytes)
        }
    }

    private static func appendLengthPrefixed(_ payload: [UInt8], to bytes: inout [UInt8]) {
        appendVarint(payload.count, to: &bytes)
        bytes += payload
    }

    private static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var remaining = UInt64(value)
        repeat {
            let low = UInt8(remaining & 0x7F)
            remaining >>= 7
            bytes.append(remaining == 0 ? low : low | 0x80)
        } while remaining != 0
    }

    private static func appendBigEndian(_ value: UInt64, bytes count: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Reads the layout back, checking every length against what is left.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        var depth = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func byte() throws(MixedDecodingError) -> UInt8 {
            guard position < bytes.count else { throw MixedDecodingError() }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: Int) throws(MixedDecodingError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= bytes.count - position else { throw MixedDecodingError() }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        mutating func bigEndian(_ count: Int) throws(MixedDecodingError) -> UInt64 {
            try take(count).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }

        mutating func varint() throws(MixedDecodingError) -> Int {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                value |= UInt64(next & 0x7F) << shift
                if next & 0x80 == 0 { break }
                shift += 7
                guard shift < 63 else { throw MixedDecodingError() }
            }
            guard value <= UInt64(Int32.max) else { throw MixedDecodingError() }
            return Int(value)
        }

        mutating func rest() throws(MixedDecodingError) -> ArraySlice<UInt8> { try take(bytes.count - position) }

        mutating func lengthPrefixed() throws(MixedDecodingError) -> ArraySlice<UInt8> { try take(try varint()) }

        mutating func topLevel() throws(MixedDecodingError) -> MixedValue {
            let tagByte = try byte()
            guard let tag = Tag(rawValue: tagByte) else { throw MixedDecodingError() }
            switch tag {
            case .data: return .data(Data(try rest()))
            case .decimal: return try Self.decimal(try rest())
            case .link:
                let rowID = Int64(bitPattern: try bigEndian(8))
                return .link(className: String(decoding: try rest(), as: UTF8.self), rowID: rowID)
            default: return try value(tag)
            }
        }

        mutating func nested() throws(MixedDecodingError) -> MixedValue {
            guard let tag = Tag(rawValue: try byte()) else { throw MixedDecodingError() }
            switch tag {
            case .data: return .data(Data(try lengthPrefixed()))
            case .decimal: return try Self.decimal(try lengthPrefixed())
            case .link:
                let rowID = Int64(bitPattern: try bigEndian(8))
                return .link(className: String(decoding: try lengthPrefixed(), as: UTF8.self), rowID: rowID)
            default: return try value(tag)
            }
        }

        /// The tags whose payload reads the same at the top level and nested.
        private mutating func value(_ tag: Tag) throws(MixedDecodingError) -> MixedValue {
            switch tag {
            case .none: return .none
            case .int: return .int(Int64(bitPattern: try bigEndian(8)))
            case .double: return .double(Double(bitPattern: try bigEndian(8)))
            case .string: return .string(String(decoding: try lengthPrefixed(), as: UTF8.self))
            case .bool: return .bool(try byte() != 0)
            case .float: return .float(Float(bitPattern: UInt32(try bigEndian(4))))
            case .date: return .date(Double(bitPattern: try bigEndian(8)))
            case .objectId: return .objectId(Array(try take(12)))
            case .uuid:
                let b = Array(try take(16))
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            case .list:
                depth += 1
                defer { depth -= 1 }
                guard depth <= MixedValue.maximumDepth else { throw MixedDecodingError() }
                let count = try varint()
                guard count <= bytes.count - position else { throw MixedDecodingError() }
                var elements: [MixedValue] = []
                elements.reserveCapacity(count)
                for _ in 0..<count { elements.append(try nested()) }
                return .list(elements)
            case .dictionary:
                depth += 1
                defer { depth -= 1 }
                guard depth <= MixedValue.maximumDepth else { throw MixedDecodingError() }
                let count = try varint()
                guard count <= bytes.count - position else { throw MixedDecodingError() }
                var entries: [(key: String, value: MixedValue)] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    let key = String(decoding: try lengthPrefixed(), as: UTF8.self)
                    entries.append((key, try nested()))
                }
                return .dictionary(entries)
            case .data, .decimal, .link: throw MixedDecodingError()
            }
        }

        private static func decimal(_ bytes: ArraySlice<UInt8>) throws(MixedDecodingError) -> MixedValue {
            guard let value = try? Decimal128(string: String(decoding: bytes, as: UTF8.self)) else { throw MixedDecodingError() }
            return .decimal(value)
        }
    }
}
