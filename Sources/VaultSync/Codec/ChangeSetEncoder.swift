extension ChangeSetCodec {
    /// Writes one change set (see the format in ChangeSetCodec.swift).
    struct Encoder {
        let changeSet: ChangeSet
        private var writer = ByteWriter()
        private var names: [String: Int] = [:]
        private var nameList: [String] = []
        private let dependencies: [(device: SyncDeviceID, sequence: UInt64)]
        private var deviceIndex: [SyncDeviceID: UInt64] = [:]

        init(_ changeSet: ChangeSet) {
            self.changeSet = changeSet
            dependencies = changeSet.dependencies.filter { $0.key != changeSet.author }
                .map { (device: $0.key, sequence: $0.value) }.sorted { $0.device < $1.device }
            for (index, dependency) in dependencies.enumerated() { deviceIndex[dependency.device] = UInt64(index + 1) }
        }

        mutating func encode() throws(SyncError) -> [UInt8] {
            guard changeSet.sequence >= 1 else { throw .malformedChangeSet("sequence numbers start at 1") }
            // Operations first, into their own writer, to collect the names they use.
            var body = ByteWriter()
            body.varint(UInt64(changeSet.operations.count))
            for operation in changeSet.operations { try write(operation, to: &body) }

            writer.u8(ChangeSetCodec.version)
            writer.u64(changeSet.author.rawValue)
            writer.varint(changeSet.sequence)
            writer.varint(UInt64(dependencies.count))
            for dependency in dependencies {
                writer.u64(dependency.device.rawValue)
                writer.varint(dependency.sequence)
            }
            writer.varint(UInt64(nameList.count))
            for name in nameList { writer.text(name) }
            writer.raw(body.bytes)
            return writer.bytes
        }

        private mutating func name(_ string: String) -> UInt64 {
            if let index = names[string] { return UInt64(index) }
            names[string] = nameList.count
            nameList.append(string)
            return UInt64(nameList.count - 1)
        }

        private func stamp(_ stamp: SyncStamp, to out: inout ByteWriter) throws(SyncError) {
            out.varint(stamp.clock)
            guard stamp.clock != 0 else {
                guard stamp == .zero else { throw .malformedChangeSet("a stamp with clock 0 must be the zero stamp") }
                out.varint(0)
                return
            }
            if stamp.device == changeSet.author {
                out.varint(0)
            } else if let index = deviceIndex[stamp.device] {
                out.varint(index)
            } else {
                throw .malformedChangeSet("a stamp of device \(stamp.device), which is neither the author nor a dependency")
            }
        }

        private func epoch(_ epoch: SyncEpoch, to out: inout ByteWriter) throws(SyncError) {
            out.varint(epoch.count)
            if epoch.count > 0 { try stamp(epoch.stamp, to: &out) }
        }

        private func anchor(_ anchor: SyncStamp?, to out: inout ByteWriter) throws(SyncError) {
            guard let anchor else { return out.u8(0) }
            out.u8(1)
            try stamp(anchor, to: &out)
        }

        private mutating func value(_ value: SyncValue, to out: inout ByteWriter) throws(SyncError) {
            switch value {
            case .null: out.u8(Tag.null.rawValue)
            case .bool(let flag): out.u8(flag ? Tag.bool1.rawValue : Tag.bool0.rawValue)
            case .int(let number): out.u8(Tag.int.rawValue); out.zigzag(number)
            case .float(let bits): out.u8(Tag.float.rawValue); out.u32(bits)
            case .double(let bits): out.u8(Tag.double.rawValue); out.u64(bits)
            case .string(let text): out.u8(Tag.string.rawValue); out.text(text)
            case .data(let bytes): out.u8(Tag.data.rawValue); out.varint(UInt64(bytes.count)); out.raw(bytes)
            case .date(let bits): out.u8(Tag.date.rawValue); out.u64(bits)
            case .decimal(let text): out.u8(Tag.decimal.rawValue); out.text(text)
            case .objectId(let bytes):
                guard bytes.count == 12 else { throw .malformedChangeSet("an ObjectId has 12 bytes") }
                out.u8(Tag.objectId.rawValue); out.raw(bytes)
            case .uuid(let bytes):
                guard bytes.count == 16 else { throw .malformedChangeSet("a UUID has 16 bytes") }
                out.u8(Tag.uuid.rawValue); out.raw(bytes)
            case .link(let reference):
                out.u8(Tag.link.rawValue)
                try object(reference, to: &out)
            }
        }

        private mutating func object(_ reference: SyncObjectReference, to out: inout ByteWriter) throws(SyncError) {
            guard reference.primaryKey.isPrimaryKey else { throw .malformedChangeSet("a primary key must be nil, an integer, a string, an ObjectId or a UUID") }
            out.varint(name(reference.className))
            try value(reference.primaryKey, to: &out)
            out.varint(reference.incarnation)
        }

        private mutating func write(_ operation: SyncOperation, to out: inout ByteWriter) throws(SyncError) {
            let opcode: Opcode
            switch operation.change {
            case .create: opcode = .create
            case .erase: opcode = .erase
            case .set: opcode = .set
            case .listInsert: opcode = .listInsert
            case .listMove: opcode = .listMove
            case .listErase: opcode = .listErase
            case .listSet: opcode = .listSet
            case .clear: opcode = .clear
            case .setMember: opcode = .setMember
            case .mapEntry: opcode = .mapEntry
            }
            out.u8(opcode.rawValue)
            try object(operation.object, to: &out)
            try stamp(operation.stamp, to: &out)
            switch operation.change {
            case .create, .erase:
                break
            case .set(let property, let newValue):
                out.varint(name(property)); try value(newValue, to: &out)
            case .listInsert(let property, let epochValue, let before, let newValue):
                out.varint(name(property)); try epoch(epochValue, to: &out); try anchor(before, to: &out); try value(newValue, to: &out)
            case .listMove(let property, let epochValue, let element, let before):
                out.varint(name(property)); try epoch(epochValue, to: &out); try stamp(element, to: &out); try anchor(before, to: &out)
            case .listErase(let property, let epochValue, let element):
                out.varint(name(property)); try epoch(epochValue, to: &out); try stamp(element, to: &out)
            case .listSet(let property, let epochValue, let element, let newValue):
                out.varint(name(property)); try epoch(epochValue, to: &out); try stamp(element, to: &out); try value(newValue, to: &out)
            case .clear(let property, let epochValue):
                out.varint(name(property)); try epoch(epochValue, to: &out)
            case .setMember(let property, let epochValue, let member, let present):
                out.varint(name(property)); try epoch(epochValue, to: &out); try value(member, to: &out); out.u8(present ? 1 : 0)
            case .mapEntry(let property, let epochValue, let key, let newValue):
                out.varint(name(property)); try epoch(epochValue, to: &out); out.varint(name(key))
                if let newValue { out.u8(1); try value(newValue, to: &out) } else { out.u8(0) }
            }
        }
    }
}
