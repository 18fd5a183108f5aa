import Foundation
import VaultCore
@_spi(VaultSync) @_spi(Interchange) import VaultKit

// MARK: - Mixed values
//
// An `AnyVaultValue` travels as the SyncValue of its kind — an int as `.int`,
// a double as `.double`, a link to any class as `.link` (class, key and
// incarnation), nothing as `.null` — so it merges as any value does. Two kinds
// have no SyncValue of their own and travel as `.data` with a first byte
// saying which they are:
//
//   0 ‖ bytes        a Data value
//   1 ‖ change set   a nested list: one `set` per element, named by its index
//   2 ‖ change set   a nested dictionary: one `set` per entry, named by its key
//
// (the change set written with ChangeSetCodec; its elements are mixed values
// in this same form, to any depth). A nested collection is one value: it is
// replaced whole, last writer wins, as Realm's sync replaces a nested
// collection assigned to a mixed property. Links to deleted objects read as
// nil, nested ones too, as the vault itself rewrites them.

/// Mixed values in sync form and back.
enum MixedSyncCoding {
    /// The sync form of a stored mixed value; `link` gives a stored link's (class, row id) sync form.
    static func syncValue(_ value: MixedValue, link: (String, Int64) throws -> SyncValue) throws -> SyncValue {
        switch value {
        case .none: return .null
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number.bitPattern)
        case .double(let number): return .double(number.bitPattern)
        case .string(let text): return .string(text)
        case .data(let bytes): return .data([0] + [UInt8](bytes))
        case .date(let seconds): return .date(seconds.bitPattern)
        case .objectId(let bytes): return .objectId(bytes)
        case .decimal(let decimal): return .decimal(decimal.description)
        case .uuid(let uuid): return .uuid(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .link(let className, let rowID): return try link(className, rowID)
        case .list(let elements):
            return try nested(1, elements.enumerated().map { (String($0.offset), try syncValue($0.element, link: link)) })
        case .dictionary(let entries):
            return try nested(2, entries.map { ($0.key, try syncValue($0.value, link: link)) })
        }
    }

    /// The stored mixed value of a sync value; `row` gives a live link's row id (nil: the link reads as nil).
    /// Nested lists and dictionaries deeper than a vault stores (``InterchangeValue/maximumMixedDepth``) are refused.
    static func mixedValue(_ value: SyncValue, depth: Int = 0, row: (SyncObjectReference) throws -> Int64?) throws -> MixedValue {
        switch value {
        case .null: return .none
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .float(let bits): return .float(Float(bitPattern: bits))
        case .double(let bits): return .double(Double(bitPattern: bits))
        case .string(let text): return .string(text)
        case .date(let bits): return .date(Double(bitPattern: bits))
        case .objectId(let bytes): return .objectId(bytes)
        case .decimal(let text):
            guard let decimal = try? Decimal128(string: text) else { throw SyncError.schemaMismatch("a mixed decimal that does not parse") }
            return .decimal(decimal)
        case .uuid(let bytes):
            guard bytes.count == 16 else { throw SyncError.schemaMismatch("a mixed UUID of \(bytes.count) bytes") }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case .link(let reference):
            guard let rowID = try row(reference) else { return .none }
            return .link(className: reference.className, rowID: rowID)
        case .data(let bytes):
            guard let kind = bytes.first else { throw SyncError.schemaMismatch("a mixed value without its kind") }
            switch kind {
            case 0: return .data(Data(bytes.dropFirst()))
            case 1 where depth >= InterchangeValue.maximumMixedDepth, 2 where depth >= InterchangeValue.maximumMixedDepth:
                throw SyncError.schemaMismatch("a mixed value nested deeper than \(InterchangeValue.maximumMixedDepth) levels")
            case 1: return .list(try entries(bytes).map { try mixedValue($0.1, depth: depth + 1, row: row) })
            case 2: return .dictionary(try entries(bytes).map { (key: $0.0, value: try mixedValue($0.1, depth: depth + 1, row: row)) })
            default: throw SyncError.schemaMismatch("a mixed value of unknown kind \(kind)")
            }
        }
    }

    /// The value as a device shows it: links (nested ones too) that `isLive` refuses as nil.
    static func visible(_ value: SyncValue, isLive: (SyncObjectReference) -> Bool) throws -> SyncValue {
        switch value {
        case .link(let reference): return isLive(reference) ? value : .null
        case .data(let bytes) where bytes.first == 1 || bytes.first == 2:
            return try nested(bytes[0], try entries(bytes).map { ($0.0, try visible($0.1, isLive: isLive)) })
        default: return value
        }
    }

    private static func nested(_ kind: UInt8, _ entries: [(String, SyncValue)]) throws(SyncError) -> SyncValue {
        .data([kind] + (try NamedValuesCoding.encode(entries)))
    }

    private static func entries(_ bytes: [UInt8]) throws(SyncError) -> [(String, SyncValue)] {
        try NamedValuesCoding.decode(bytes.dropFirst())
    }
}
