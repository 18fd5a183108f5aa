/// A sequence of named values (an embedded object's properties, a nested mixed
/// collection's entries) as bytes: a change set of one `set` per value, written
/// with the change-set codec, so one strict decoder reads every sync format.
/// Equal sequences have equal bytes.
enum NamedValuesCoding {
    static func encode(_ values: [(String, SyncValue)]) throws(SyncError) -> [UInt8] {
        let author = SyncDeviceID(rawValue: 0)
        let object = SyncObjectReference(className: "", primaryKey: .null, incarnation: 1)
        let stamp = SyncStamp(clock: 1, device: author)
        let operations = values.map { SyncOperation(object: object, stamp: stamp, change: .set(property: $0.0, value: $0.1)) }
        // Links name devices only through stamps, which are all the author's here.
        return try ChangeSetCodec.encode(ChangeSet(author: author, sequence: 1, dependencies: [:], operations: operations))
    }

    static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(SyncError) -> [(String, SyncValue)] {
        let changeSet = try ChangeSetCodec.decode(Array(bytes))
        return try changeSet.operations.map { operation throws(SyncError) in
            guard case .set(let name, let value) = operation.change else { throw .malformedChangeSet("named values that hold another operation than set") }
            return (name, value)
        }
    }
}
