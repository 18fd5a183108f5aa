extension ChangeSetCodec {
    /// Reads one change set (see the format in ChangeSetCodec.swift), refusing anything malformed.
    struct Decoder {
        private var reader: ByteReader
        private var author = SyncDeviceID(rawValue: 0)
        private var devices: [SyncDeviceID] = []
        private var names: [String] = []

        init(_ reader: ByteReader) { self.reader = reader }

        mutating func decode() throws(SyncError) -> ChangeSet {
            let version = try reader.u8()
            guard version == ChangeSetCodec.version else {
                throw .malformedChangeSet("format version \(version) is not one this build reads (\(ChangeSetCodec.version)); update the app")
            }
            author = SyncDeviceID(rawValue: try reader.u64())
            let sequence = try reader.varint()
            guard sequence >= 1 else { throw reader.fail("sequence 0") }
            var dependencies: [SyncDeviceID: UInt64] = [:]
            for _ in 0..<(try reader.count(minimumSize: 9)) {
                let device = SyncDeviceID(rawValue: try reader.u64())
                guard device != author, devices.last.map({ $0 < device }) ?? true else { throw reader.fail("dependencies out of order") }
                devices.append(device)
                dependencies[device] = try reader.varint()
            }
            for _ in 0..<(try reader.count()) { names.append(try reader.text()) }
            var operations: [SyncOperation] = []
            for _ in 0..<(try reader.count(minimumSize: 5)) { operations.append(try operation()) }
            guard reader.remaining == 0 else { throw reader.fail("\(reader.remaining) bytes after the last operation") }
            return ChangeSet(author: author, sequence: sequence, dependencies: dependencies, operations: operations)
        }

        private mutating func name() throws(SyncError) -> String {
            let index = try reader.varint()
            guard index < UInt64(names.count) else { throw reader.fail("name \(index) is not in the table") }
            return names[Int(index)]
        }

        private mutating func stamp() throws(SyncError) -> SyncStamp {
            let clock = try reader.varint()
            let device = try reader.varint()
            if clock == 0 {
                guard device == 0 else { throw reader.fail("a zero clock on a device") }
                return .zero
            }
            if device == 0 { return SyncStamp(clock: clock, device: author) }
            guard device <= UInt64(devices.count) else { throw reader.fail("device \(device) is not a dependency") }
            return SyncStamp(clock: clock, device: devices[Int(device - 1)])
        }

        private mutating func epoch() throws(SyncError) -> SyncEpoch {
            let count = try reader.varint()
            return count == 0 ? .initial : SyncEpoch(count: count, stamp: try stamp())
        }

        private mutating func anchor() throws(SyncError) -> SyncStamp? {
            switch try reader.u8() {
            case 0: return nil
            case 1: return try stamp()
            case let flag: throw reader.fail("anchor flag \(flag)")
            }
        }

        private mutating func flag() throws(SyncError) -> Bool {
            switch try reader.u8() {
            case 0: return false
            case 1: return true
            case let flag: throw reader.fail("flag \(flag)")
            }
        }

        private mutating func value(primaryKeyOnly: Bool = false) throws(SyncError) -> SyncValue {
            let raw = try reader.u8()
            guard let tag = Tag(rawValue: raw) else { throw reader.fail("value tag \(raw)") }
            let value: SyncValue
            switch tag {
            case .null: value = .null
            case .bool0: value = .bool(false)
            case .bool1: value = .bool(true)
            case .int: value = .int(try reader.zigzag())
            case .float: value = .float(try reader.u32())
            case .double: value = .double(try reader.u64())
            case .string: value = .string(try reader.text())
            case .data: value = .data(try reader.raw(try reader.count()))
            case .date: value = .date(try reader.u64())
            case .decimal: value = .decimal(try reader.text())
            case .objectId: value = .objectId(try reader.raw(12))
            case .uuid: value = .uuid(try reader.raw(16))
            case .link:
                guard !primaryKeyOnly else { throw reader.fail("a link cannot be a primary key") }
                value = .link(try object())
            }
            guard !primaryKeyOnly || value.isPrimaryKey else { throw reader.fail("a primary key must be nil, an integer, a string, an ObjectId or a UUID") }
            return value
        }

        private mutating func object() throws(SyncError) -> SyncObjectReference {
            let className = try name()
            let primaryKey = try value(primaryKeyOnly: true)
            return SyncObjectReference(className: className, primaryKey: primaryKey, incarnation: try reader.varint())
        }

        private mutating func operation() throws(SyncError) -> SyncOperation {
            let raw = try reader.u8()
            guard let opcode = Opcode(rawValue: raw) else { throw reader.fail("opcode \(raw)") }
            let target = try object()
            let stamp = try stamp()
            guard stamp != .zero else { throw reader.fail("an operation with the zero stamp") }
            let change: SyncOperation.Change
            switch opcode {
            case .create:
                guard target.incarnation % 2 == 1 else { throw reader.fail("a create at an even incarnation") }
                change = .create
            case .erase:
                guard target.incarnation % 2 == 0, target.incarnation > 0 else { throw reader.fail("an erase at an odd incarnation") }
                change = .erase
            case .set:
                change = .set(property: try name(), value: try value())
            case .listInsert:
                change = .listInsert(property: try name(), epoch: try epoch(), before: try anchor(), value: try value())
            case .listMove:
                change = .listMove(property: try name(), epoch: try epoch(), element: try self.stamp(), before: try anchor())
            case .listErase:
                change = .listErase(property: try name(), epoch: try epoch(), element: try self.stamp())
            case .listSet:
                change = .listSet(property: try name(), epoch: try epoch(), element: try self.stamp(), value: try value())
            case .clear:
                let property = try name()
                let epoch = try epoch()
                guard epoch.count > 0 else { throw reader.fail("a clear to the first generation") }
                change = .clear(property: property, epoch: epoch)
            case .setMember:
                change = .setMember(property: try name(), epoch: try epoch(), value: try value(), present: try flag())
            case .mapEntry:
                let property = try name(), epoch = try epoch(), key = try name()
                change = .mapEntry(property: property, epoch: epoch, key: key, value: try flag() ? try value() : nil)
            }
            return SyncOperation(object: target, stamp: stamp, change: change)
        }
    }
}
