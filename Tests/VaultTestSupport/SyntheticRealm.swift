import Foundation

/// Builds small Realm files node by node, for encodings the fixtures do not contain
/// (nested collections in mixed values, enum strings, chained blobs, B+tree inner nodes,
/// keyed cluster inner nodes, format-22 dictionaries) and for damage the importers must
/// refuse. The layouts follow the reader's essay (`RealmFileFormat.swift`); values are
/// chosen in the test, results compared there. Shared by the reader's and the import's tests.
public struct SyntheticRealm: Sendable {
    /// The file so far: a 24-byte header, then the nodes appended.
    public private(set) var bytes = [UInt8](repeating: 0, count: 24)

    /// An empty file (a header to be completed by `finish`).
    public init() {}

    /// One element of a has-refs array.
    public enum Slot: Sendable {
        /// A ref (0 for none).
        case ref(Int)
        /// A tagged number, stored as `value << 1 | 1`.
        case tagged(Int64)
    }

    /// Appends a node; returns its ref.
    public mutating func node(inner: Bool = false, hasRefs: Bool = false, context: Bool = false, widthType: UInt8 = 0,
                       widthCode: UInt8, count: Int, payload: [UInt8]) -> Int {
        let ref = bytes.count
        var flags = widthCode | (widthType << 3)
        if inner { flags |= 0x80 }
        if hasRefs { flags |= 0x40 }
        if context { flags |= 0x20 }
        bytes += [0x41, 0x41, 0x41, 0x41, flags, UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        bytes += payload
        while bytes.count % 8 != 0 { bytes.append(0) }
        return ref
    }

    /// An integer array in the smallest width that holds every value.
    public mutating func ints(_ values: [Int64], hasRefs: Bool = false, context: Bool = false, inner: Bool = false) -> Int {
        let fitsUnsigned: (Int64, Int64) -> Bool = { v, max in v >= 0 && v <= max }
        let width: Int
        if values.allSatisfy({ $0 == 0 }) { width = 0 }
        else if values.allSatisfy({ fitsUnsigned($0, 1) }) { width = 1 }
        else if values.allSatisfy({ fitsUnsigned($0, 3) }) { width = 2 }
        else if values.allSatisfy({ fitsUnsigned($0, 15) }) { width = 4 }
        else if values.allSatisfy({ Int64(Int8.min)...Int64(Int8.max) ~= $0 }) { width = 8 }
        else if values.allSatisfy({ Int64(Int16.min)...Int64(Int16.max) ~= $0 }) { width = 16 }
        else if values.allSatisfy({ Int64(Int32.min)...Int64(Int32.max) ~= $0 }) { width = 32 }
        else { width = 64 }
        var payload = [UInt8](repeating: 0, count: (values.count * width + 7) / 8)
        for (index, value) in values.enumerated() where width > 0 {
            if width < 8 {
                let bit = index * width
                payload[bit / 8] |= UInt8(truncatingIfNeeded: value) << UInt8(bit % 8)
            } else {
                let size = width / 8
                for byte in 0..<size {
                    payload[index * size + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte))
                }
            }
        }
        let code: UInt8 = width == 0 ? 0 : UInt8(width.trailingZeroBitCount + 1)
        return node(inner: inner, hasRefs: hasRefs, context: context, widthCode: code, count: values.count, payload: payload)
    }

    /// A has-refs array of refs and tagged integers.
    public mutating func slots(_ slots: [Slot], context: Bool = false, inner: Bool = false) -> Int {
        ints(slots.map { slot -> Int64 in
            switch slot {
            case let .ref(ref): return Int64(ref)
            case let .tagged(value): return value << 1 | 1
            }
        }, hasRefs: true, context: context, inner: inner)
    }

    /// Short strings (`ArrayStringShort`), nil = null.
    public mutating func shortStrings(_ values: [String?]) -> Int {
        shortStringBytes(values.map { $0.map { Array($0.utf8) } })
    }

    /// Short strings given as bytes (which need not be UTF-8), nil = null.
    public mutating func shortStringBytes(_ values: [[UInt8]?]) -> Int {
        let longest = values.map { $0?.count ?? 0 }.max() ?? 0
        var width = 1
        while width < longest + 1 { width *= 2 }
        if values.allSatisfy({ $0 == nil }) { width = 0 }
        var payload: [UInt8] = []
        for value in values where width > 0 {
            var slot = [UInt8](repeating: 0, count: width)
            if let value {
                slot.replaceSubrange(0..<value.count, with: value)
                slot[width - 1] = UInt8(width - 1 - value.count)
            } else {
                slot[width - 1] = UInt8(width)
            }
            payload += slot
        }
        let code: UInt8 = width == 0 ? 0 : UInt8(width.trailingZeroBitCount + 1)
        return node(widthType: 1, widthCode: code, count: values.count, payload: payload)
    }

    /// A blob of bytes (`ArrayBlob`, one byte per element).
    public mutating func blob(_ data: [UInt8]) -> Int {
        node(widthType: 2, widthCode: 0, count: data.count, payload: data)
    }

    /// A leaf of fixed-width little-endian values (`BasicArray`, `ArrayDecimal128`).
    public mutating func fixed(width: Int, _ values: [[UInt8]], context: Bool = false) -> Int {
        let code: UInt8 = width == 0 ? 0 : UInt8(width.trailingZeroBitCount + 1)
        return node(context: context, widthType: 1, widthCode: code, count: values.count, payload: values.flatMap { $0 })
    }

    /// The little-endian bytes of `value`.
    public static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// A ColKey value.
    public static func columnKey(leaf: Int, type: Int, attributes: Int = 0, tag: Int64 = 7) -> Int64 {
        Int64(leaf) | Int64(type) << 16 | Int64(attributes) << 22 | tag << 30
    }

    /// One column of a table's spec.
    public struct Column: Sendable {
        /// The column's name.
        public let name: String
        /// The spec's type entry (the column type; a dictionary's key type in bits 16 and up).
        public let type: Int
        /// The spec's attribute entry.
        public let attributes: Int
        /// The ColKey.
        public var key: Int64
        /// The ref of the enum-string key list, or 0.
        public var enumKeys: Int = 0

        /// A column description.
        public init(name: String, type: Int, attributes: Int, key: Int64, enumKeys: Int = 0) {
            self.name = name
            self.type = type
            self.attributes = attributes
            self.key = key
            self.enumKeys = enumKeys
        }
    }

    /// A table top with its spec: returns the table-top ref.
    public mutating func table(key: Int64, columns: [Column], cluster: Int, linkTargets: [Int64] = [],
                        primaryKey: Int64? = nil, flags: Int64 = 0) -> Int {
        let types = ints(columns.map { Int64($0.type) })
        let names = shortStrings(columns.map(\.name))
        let attributes = ints(columns.map { Int64($0.attributes) })
        let enumKeys = columns.contains { $0.enumKeys != 0 } ? slots(columns.map { .ref($0.enumKeys) }) : 0
        let keys = ints(columns.map(\.key))
        let spec = slots([.ref(types), .ref(names), .ref(attributes), .ref(0), .ref(enumKeys), .ref(keys)])
        let indexes = slots(columns.map { _ in .ref(0) })
        let opposite = ints(linkTargets.isEmpty ? columns.map { _ in 0x7FFF_FFFF } : linkTargets)
        return slots([.ref(spec), .ref(0), .ref(cluster), .tagged(key), .ref(indexes), .tagged(Int64(columns.count)),
                      .tagged(0), .ref(opposite), .ref(0), .tagged(0), .ref(0),
                      primaryKey.map { .tagged($0) } ?? .ref(0), .tagged(flags)])
    }

    /// Writes the group (`names` → table tops) and the header; returns the file's bytes.
    public mutating func finish(tables: [(String, Int)], format: UInt8) -> Data {
        let names = shortStrings(tables.map(\.0))
        let refs = slots(tables.map { .ref($0.1) })
        let top = slots([.ref(names), .ref(refs), .tagged(Int64(bytes.count))])  // (a lower bound: the top follows)
        var file = bytes
        file.replaceSubrange(0..<8, with: Self.littleEndian(UInt64(top)))
        file.replaceSubrange(16..<24, with: Array("T-DB".utf8) + [format, format, 0, 0])
        return Data(file)
    }
}
