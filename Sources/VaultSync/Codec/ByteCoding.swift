/// Appends the primitives of the change-set format.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) { bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(truncatingIfNeeded: value >> 8)) }

    mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }

    mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }

    /// Unsigned LEB128.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Zigzag, then LEB128 (small negative numbers stay short).
    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// Length, then UTF-8.
    mutating func text(_ string: String) {
        let utf8 = Array(string.utf8)
        varint(UInt64(utf8.count))
        raw(utf8)
    }
}

/// Reads the primitives of the change-set format, refusing anything out of
/// bounds: a count can never exceed the bytes left, so corrupt input costs
/// no more memory than its own size.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    func fail(_ reason: String) -> SyncError { .malformedChangeSet("\(reason) at byte \(offset)") }

    mutating func u8() throws(SyncError) -> UInt8 {
        guard offset < bytes.count else { throw fail("unexpected end") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(SyncError) -> UInt16 {
        let low = UInt16(try u8())
        return low | UInt16(try u8()) << 8
    }

    mutating func u32() throws(SyncError) -> UInt32 {
        var value: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(try u8()) << UInt32(shift) }
        return value
    }

    mutating func u64() throws(SyncError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(try u8()) << UInt64(shift) }
        return value
    }

    mutating func varint() throws(SyncError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 64, shift < 63 || byte <= 1 else { throw fail("integer too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func zigzag() throws(SyncError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count of items each at least `minimumSize` bytes long, bounded by what is left.
    mutating func count(minimumSize: Int = 1) throws(SyncError) -> Int {
        let value = try varint()
        guard value <= UInt64(remaining / Swift.max(1, minimumSize)) else { throw fail("count \(value) exceeds the bytes left") }
        return Int(value)
    }

    mutating func raw(_ count: Int) throws(SyncError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw fail("unexpected end") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func text() throws(SyncError) -> String {
        let utf8 = try raw(try count())
        guard let string = String(validating: utf8, as: UTF8.self) else { throw fail("text is not UTF-8") }
        return string
    }
}
