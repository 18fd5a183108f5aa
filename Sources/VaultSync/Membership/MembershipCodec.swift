/// The bytes of a membership entry's operations, sealed inside its envelope (the
/// signer is the envelope's device). Little-endian, like the change-set format:
///
///     u8 version (1), varint count, then each operation:
///       1 genesis       signing key (32) ‖ box key (32)
///       2 addDevice     signing key (32) ‖ box key (32) ‖ person (16) ‖ role u8 ‖ join signature (64)
///       3 removeDevice  device u64
///       4 removePerson  person (16)
///       5 setRole       person (16) ‖ role u8
///       6 rotate        epoch u32
///       7 shareKey      epoch u32
///
/// Decoding refuses any other version, tag or role, a count the bytes cannot
/// hold, and bytes left over: an entry reads one way or not at all.
enum MembershipCodec {
    static let version: UInt8 = 1

    static func encode(_ operations: [MembershipOperation]) -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(version)
        writer.varint(UInt64(operations.count))
        for operation in operations {
            switch operation {
            case .genesis(let keys):
                writer.u8(1)
                writer.raw(keys.signing + keys.box)
            case .addDevice(let keys, let person, let role, let joinSignature):
                writer.u8(2)
                writer.raw(keys.signing + keys.box + person.bytes)
                writer.u8(role.rawValue)
                writer.raw(joinSignature)
            case .removeDevice(let device):
                writer.u8(3)
                writer.u64(device.rawValue)
            case .removePerson(let person):
                writer.u8(4)
                writer.raw(person.bytes)
            case .setRole(let person, let role):
                writer.u8(5)
                writer.raw(person.bytes)
                writer.u8(role.rawValue)
            case .rotate(let epoch):
                writer.u8(6)
                writer.u32(epoch)
            case .shareKey(let epoch):
                writer.u8(7)
                writer.u32(epoch)
            }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(SyncError) -> [MembershipOperation] {
        var reader = ByteReader(bytes)
        let found = try reader.u8()
        guard found == version else { throw .malformedChangeSet("membership entry version \(found) is not one this build reads; update the app") }
        // The shortest operation is a tag and a u32.
        let count = try reader.count(minimumSize: 5)
        var operations: [MembershipOperation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            switch try reader.u8() {
            case 1:
                operations.append(.genesis(try keys(&reader)))
            case 2:
                let keys = try keys(&reader)
                let person = try person(&reader)
                let role = try role(&reader)
                let joinSignature = try reader.raw(DevicePublicKeys.signatureByteCount)
                operations.append(.addDevice(keys: keys, person: person, role: role, joinSignature: joinSignature))
            case 3:
                operations.append(.removeDevice(SyncDeviceID(rawValue: try reader.u64())))
            case 4:
                operations.append(.removePerson(try person(&reader)))
            case 5:
                let person = try person(&reader)
                operations.append(.setRole(person, try role(&reader)))
            case 6:
                operations.append(.rotate(epoch: try reader.u32()))
            case 7:
                operations.append(.shareKey(epoch: try reader.u32()))
            case let tag:
                throw reader.fail("unknown membership operation \(tag)")
            }
        }
        guard reader.remaining == 0 else { throw reader.fail("\(reader.remaining) bytes after the membership entry") }
        return operations
    }

    private static func keys(_ reader: inout ByteReader) throws(SyncError) -> DevicePublicKeys {
        let signing = try reader.raw(DevicePublicKeys.signingKeyByteCount)
        return try DevicePublicKeys(signing: signing, box: try reader.raw(DevicePublicKeys.boxKeyByteCount))
    }

    private static func person(_ reader: inout ByteReader) throws(SyncError) -> SyncPersonID {
        SyncPersonID(bytes: try reader.raw(SyncPersonID.byteCount))
    }

    private static func role(_ reader: inout ByteReader) throws(SyncError) -> SyncRole {
        let raw = try reader.u8()
        guard let role = SyncRole(rawValue: raw) else { throw reader.fail("unknown role \(raw)") }
        return role
    }
}
