import Foundation
import VaultCore

/// A 12-byte unique identifier, as in MongoDB and Realm: a 4-byte big-endian
/// timestamp (seconds), 5 random bytes fixed per process, and a 3-byte counter.
///
/// Ordering follows creation time; the string form is 24 lowercase hex digits.
///
/// ```swift
/// @Persisted(primaryKey: true) var _id: ObjectId      // a new id for every object
/// let id = try ObjectId(string: "65a1f0c2e4b0a1b2c3d4e5f6")
/// ```
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The 12 bytes.
    public let bytes: [UInt8]

    private static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Locked(UInt32.random(in: 0...0xFFFFFF))

    /// A new identifier for the current time.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
        let count = counter.withLock { value in value &+= 1; return value } & 0xFFFFFF
        var bytes: [UInt8] = [UInt8(seconds >> 24), UInt8(seconds >> 16 & 0xFF), UInt8(seconds >> 8 & 0xFF), UInt8(seconds & 0xFF)]
        bytes += processRandom
        bytes += [UInt8(count >> 16), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        return ObjectId(uncheckedBytes: bytes)
    }

    /// An identifier for `timestamp` (whole seconds) with the low three bytes
    /// of `machineId`, the low two of `processId` and the next counter value
    /// (Realm's `init(timestamp:machineId:processId:)`, byte for byte).
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970.rounded(.down)))
        let count = ObjectId.counter.withLock { value in value &+= 1; return value } & 0xFFFFFF
        let machine = UInt32(truncatingIfNeeded: machineId), process = UInt16(truncatingIfNeeded: processId)
        self.init(uncheckedBytes: [UInt8(seconds >> 24), UInt8(seconds >> 16 & 0xFF), UInt8(seconds >> 8 & 0xFF), UInt8(seconds & 0xFF),
                                   UInt8(machine & 0xFF), UInt8(machine >> 8 & 0xFF), UInt8(machine >> 16 & 0xFF),
                                   UInt8(process & 0xFF), UInt8(process >> 8),
                                   UInt8(count >> 16), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
    }

    /// A new identifier (Realm's `ObjectId()` without arguments generates one).
    public init() { self = ObjectId.generate() }

    private init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    /// Parses 24 hexadecimal digits.
    /// - Throws: ``VaultObjectError/invalidObjectId(_:)``.
    public init(string: String) throws(VaultObjectError) {
        let characters = Array(string.utf8)
        guard characters.count == 24 else { throw .invalidObjectId(string) }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: 24, by: 2) {
            guard let byte = UInt8(String(decoding: characters[i..<(i + 2)], as: UTF8.self), radix: 16) else {
                throw .invalidObjectId(string)
            }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    /// From exactly 12 bytes, or `nil`.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    /// The creation time encoded in the identifier (second precision).
    public var timestamp: Date {
        let seconds = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// 24 lowercase hex digits.
    public var stringValue: String { bytes.map { String(format: "%02x", $0) }.joined() }
    public var description: String { stringValue }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = try ObjectId(string: try container.decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
