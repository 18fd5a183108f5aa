// MARK: - The change-set format, version 1
//
// OVERVIEW
//
// A change set travels sealed (ChangeSetSealer); inside the envelope it is
// this compact binary form. Integers are little-endian (`u32`, `u64`) or
// LEB128 (`varint`; `zigzag` for signed values); `text` is a varint byte
// count and UTF-8. Every count is bounded by the bytes left, every index by
// its table, every tag and opcode by the list below; anything else, and any
// trailing byte, is `SyncError.malformedChangeSet`. Decoding never traps.
//
// LAYOUT
//
//   u8      format version (1)
//   u64     author device id
//   varint  author sequence (≥ 1)
//   varint  D, then D × (u64 device, varint sequence)  dependencies, devices ascending
//   varint  S, then S × text                           names: classes, properties, map keys
//   varint  N, then N × operation
//
//   operation = u8 opcode ‖ varint class name ‖ value primary key
//               ‖ varint incarnation ‖ stamp ‖ operands
//   stamp     = varint clock ‖ varint device (0: the author, k: dependency k)
//               clock 0 is the zero stamp (device 0), never taken by a device
//   epoch     = varint count ‖ stamp (only when count > 0)
//   anchor    = u8 0 (the end) | u8 1 ‖ stamp (a slot)
//
//   opcode  operands
//   1 create, 2 erase   —
//   3 set               varint property ‖ value
//   4 list insert       varint property ‖ epoch ‖ anchor ‖ value
//   5 list move         varint property ‖ epoch ‖ stamp element ‖ anchor
//   6 list erase        varint property ‖ epoch ‖ stamp element
//   7 list set          varint property ‖ epoch ‖ stamp element ‖ value
//   8 clear             varint property ‖ epoch
//   9 set member        varint property ‖ epoch ‖ value ‖ u8 present (0/1)
//   10 map entry        varint property ‖ epoch ‖ varint key ‖ u8 0 (removed) | u8 1 ‖ value
//
//   value = u8 tag ‖ payload:
//   0 null · 1 false · 2 true · 3 int (zigzag) · 4 float (u32 bits) · 5 double (u64 bits)
//   6 string (text) · 7 data (varint count, bytes) · 8 date (u64 bits of seconds since 2001)
//   9 decimal (text) · 10 objectId (12 bytes) · 11 uuid (16 bytes)
//   12 link (varint class name ‖ value primary key ‖ varint incarnation)
//
// A stamp names its device through the dependency list because every stamp
// a change set mentions was taken by its author or by a device whose change
// sets the author had applied.

/// Encodes and decodes change sets (format version 1, described above).
public enum ChangeSetCodec {
    /// The format version this build writes and reads.
    public static let version: UInt8 = 1

    /// The bytes of `changeSet`. A stamp whose device is neither the author
    /// nor a dependency cannot be written: ``SyncError/malformedChangeSet(_:)``.
    public static func encode(_ changeSet: ChangeSet) throws(SyncError) -> [UInt8] {
        var encoder = Encoder(changeSet)
        return try encoder.encode()
    }

    /// The change set in `bytes`, checked strictly.
    public static func decode(_ bytes: [UInt8]) throws(SyncError) -> ChangeSet {
        var decoder = Decoder(ByteReader(bytes))
        return try decoder.decode()
    }
}

extension ChangeSetCodec {
    enum Opcode: UInt8 {
        case create = 1, erase, set, listInsert, listMove, listErase, listSet, clear, setMember, mapEntry
    }

    enum Tag: UInt8 {
        case null = 0, bool0, bool1, int, float, double, string, data, date, decimal, objectId, uuid, link
    }
}
