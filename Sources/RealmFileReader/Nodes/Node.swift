/// One array node: an 8-byte header and its payload (realm-core `node_header.hpp`,
/// layout comment at the top of `array.cpp`).
///
///     bytes 0–3  "AAAA" in the file (a checksum placeholder; capacity in memory)
///     byte 4     0x80 inner B+tree node · 0x40 has refs · 0x20 context flag
///                0x18 width type (0 bits, 1 bytes, 2 ignore) · 0x07 log2(width)+1
///     bytes 5–7  element count, 24-bit big-endian
///
/// The payload length is `ceil(count·width/8)` (bits), `count·width` (bytes) or
/// `count` (ignore); on disk it is padded to a multiple of 8, which the reader
/// does not need.
struct Node {
    static let headerSize = 8
    static let checksum: UInt32 = 0x4141_4141

    /// The node's position in the file image.
    let ref: Int
    /// Byte 4 of the header.
    let flags: UInt8
    /// The element count.
    let count: Int
    /// The payload, exactly as long as the header says.
    let payload: ByteSpan

    var isInnerBPlusTreeNode: Bool { flags & 0x80 != 0 }
    var hasRefs: Bool { flags & 0x40 != 0 }
    var contextFlag: Bool { flags & 0x20 != 0 }
    /// 0 = width in bits, 1 = width in bytes, 2 = one byte per element.
    var widthType: Int { Int((flags & 0x18) >> 3) }
    /// 0, 1, 2, 4, 8, 16, 32 or 64.
    var width: Int { (1 << Int(flags & 0x07)) >> 1 }

    /// The payload length implied by a header's flags and count; nil for the invalid width type 3.
    static func payloadLength(flags: UInt8, count: Int) -> Int? {
        let width = (1 << Int(flags & 0x07)) >> 1
        switch (flags & 0x18) >> 3 {
        case 0: return (count * width + 7) / 8
        case 1: return count * width
        case 2: return count
        default: return nil
        }
    }

    // MARK: Integers (realm-core `array_direct.hpp`: widths 1, 2, 4 unsigned, 8–64 signed)

    /// Throws unless the payload holds `count` bit-packed integers of `width` bits.
    func requireIntegers(_ what: @autoclosure () -> String) throws(RealmFileError) {
        guard (count * width + 7) / 8 <= payload.count else {
            throw .corrupt("node at 0x\(String(ref, radix: 16)) (\(what())) is too short for its integers")
        }
    }

    /// Element `index` as a signed integer; the caller has checked `index < count` and
    /// called `requireIntegers`.
    @inline(__always)
    func int(_ index: Int) -> Int64 {
        switch flags & 0x07 {
        case 0: return 0
        case 1: return Int64((payload.byte(index >> 3) >> UInt8(index & 7)) & 1)
        case 2: return Int64((payload.byte(index >> 2) >> UInt8((index & 3) << 1)) & 3)
        case 3: return Int64((payload.byte(index >> 1) >> UInt8((index & 1) << 2)) & 15)
        case 4: return Int64(Int8(bitPattern: payload.byte(index)))
        case 5: return Int64(Int16(bitPattern: payload.uint16(index << 1)))
        case 6: return Int64(Int32(bitPattern: payload.uint32(index << 2)))
        default: return Int64(bitPattern: payload.uint64(index << 3))
        }
    }

    /// Element `index` read as unsigned (realm-core `array_unsigned.cpp`: widths 8, 16, 32 are
    /// unsigned there; used for cluster keys and B+tree offsets).
    @inline(__always)
    func unsigned(_ index: Int) -> UInt64 {
        switch flags & 0x07 {
        case 4: return UInt64(payload.byte(index))
        case 5: return UInt64(payload.uint16(index << 1))
        case 6: return UInt64(payload.uint32(index << 2))
        default: return UInt64(bitPattern: int(index))
        }
    }

    /// Element `index` checked: throws if out of range or if the node is not an integer array.
    func checkedInt(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int64 {
        guard index >= 0, index < count else {
            throw .corrupt("index \(index) beyond the \(count) elements of node 0x\(String(ref, radix: 16)) (\(what()))")
        }
        try requireIntegers(what())
        return int(index)
    }

    /// Element `index` of a has-refs array as a ref: 0 for null, nil if the element is a
    /// tagged integer (LSB set). Alignment and bounds are checked when the ref is followed.
    func refOrNil(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int? {
        let value = try checkedInt(index, what())
        if value & 1 != 0 { return nil }
        guard value >= 0 else {
            throw .corrupt("negative ref in node 0x\(String(ref, radix: 16)) (\(what()))")
        }
        return Int(value)
    }

    /// Element `index` of a has-refs array that must be a ref (0 allowed).
    func ref(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int {
        guard let value = try refOrNil(index, what()) else {
            throw .corrupt("element \(index) of node 0x\(String(ref, radix: 16)) (\(what())) is a number, not a ref")
        }
        return value
    }

    /// Element `index` of a has-refs array that must be a tagged integer (`(v << 1) | 1`).
    func tagged(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int64 {
        let value = try checkedInt(index, what())
        guard value & 1 != 0 else {
            throw .corrupt("element \(index) of node 0x\(String(ref, radix: 16)) (\(what())) is a ref, not a number")
        }
        return Int64(bitPattern: UInt64(bitPattern: value) >> 1)
    }

    /// Element `index` as a ref if it is one, or nil if it is a tagged integer or out of range.
    func optionalRef(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int? {
        guard index < count else { return nil }
        return try refOrNil(index, what())
    }

    /// Element `index` as a tagged integer if present and tagged, else nil.
    func optionalTagged(_ index: Int, _ what: @autoclosure () -> String) throws(RealmFileError) -> Int64? {
        guard index < count else { return nil }
        let value = try checkedInt(index, what())
        guard value & 1 != 0 else { return nil }
        return Int64(bitPattern: UInt64(bitPattern: value) >> 1)
    }
}
