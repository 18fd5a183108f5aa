import Foundation
import Testing
@testable import VaultSync

/// A change set with every value kind and every operation.
func everyKindChangeSet() -> ChangeSet {
    let author = SyncDeviceID(rawValue: 0xA1), other = SyncDeviceID(rawValue: 0xB2)
    let stamp = { (clock: UInt64) in SyncStamp(clock: clock, device: author) }
    let foreign = SyncStamp(clock: 77 << 16, device: other)
    let object = SyncObjectReference(className: "Item", primaryKey: .string("k"), incarnation: 1)
    let link = SyncObjectReference(className: "Other", primaryKey: .objectId(Array(0..<12)), incarnation: 3)
    let values: [SyncValue] = [.null, .bool(false), .bool(true), .int(-5), .int(.max), .int(.min), .float(Float.nan.bitPattern),
                               .double((-0.0).bitPattern), .string("héllo ✓"), .data([0, 255]), .date(Date(timeIntervalSinceReferenceDate: 1.5).timeIntervalSinceReferenceDate.bitPattern),
                               .decimal("1.50"), .objectId(Array(repeating: 9, count: 12)), .uuid(Array(repeating: 1, count: 16)), .link(link)]
    var operations = [SyncOperation(object: object, stamp: stamp(1 << 16), change: .create)]
    for (index, value) in values.enumerated() {
        operations.append(SyncOperation(object: object, stamp: stamp(UInt64(index + 2) << 16), change: .set(property: "p\(index)", value: value)))
    }
    let epoch = SyncEpoch(count: 2, stamp: foreign)
    operations += [
        SyncOperation(object: object, stamp: stamp(100 << 16), change: .listInsert(property: "l", epoch: epoch, before: foreign, value: .int(1))),
        SyncOperation(object: object, stamp: stamp(101 << 16), change: .listInsert(property: "l", epoch: epoch, before: nil, value: .link(link))),
        SyncOperation(object: object, stamp: stamp(102 << 16), change: .listMove(property: "l", epoch: epoch, element: foreign, before: nil)),
        SyncOperation(object: object, stamp: stamp(103 << 16), change: .listErase(property: "l", epoch: .initial, element: stamp(100 << 16))),
        SyncOperation(object: object, stamp: stamp(104 << 16), change: .listSet(property: "l", epoch: epoch, element: foreign, value: .string("x"))),
        SyncOperation(object: object, stamp: stamp(105 << 16), change: .clear(property: "s", epoch: SyncEpoch(count: 1, stamp: stamp(105 << 16)))),
        SyncOperation(object: object, stamp: stamp(106 << 16), change: .setMember(property: "s", epoch: .initial, value: .uuid(Array(repeating: 2, count: 16)), present: false)),
        SyncOperation(object: object, stamp: stamp(107 << 16), change: .mapEntry(property: "m", epoch: .initial, key: "a.b", value: .double(1.5.bitPattern))),
        SyncOperation(object: object, stamp: stamp(108 << 16), change: .mapEntry(property: "m", epoch: .initial, key: "gone", value: nil)),
        SyncOperation(object: SyncObjectReference(className: "Item", primaryKey: .int(-1), incarnation: 2), stamp: stamp(109 << 16), change: .erase),
    ]
    return ChangeSet(author: author, sequence: 42, dependencies: [other: 7], operations: operations)
}

@Suite("Change-set encoding")
struct ChangeSetCodecTests {
    @Test("every value kind and operation round-trips exactly (NaN bits, -0, extremes, Unicode)")
    func roundTrip() throws {
        let changeSet = everyKindChangeSet()
        let bytes = try ChangeSetCodec.encode(changeSet)
        #expect(try ChangeSetCodec.decode(bytes) == changeSet)
        #expect(bytes.first == ChangeSetCodec.version)
    }

    @Test("a known change set encodes to the documented bytes (format version 1 stays readable)")
    func knownAnswer() throws {
        let author = SyncDeviceID(rawValue: 1)
        let changeSet = ChangeSet(author: author, sequence: 1, dependencies: [:], operations: [
            SyncOperation(object: SyncObjectReference(className: "A", primaryKey: .int(1), incarnation: 1),
                          stamp: SyncStamp(clock: 5, device: author), change: .set(property: "n", value: .string("hi"))),
        ])
        let expected: [UInt8] = [1,  1, 0, 0, 0, 0, 0, 0, 0,  1,  0,  2, 1, 0x41, 1, 0x6E,  1,
                                 3, 0, 3, 2, 1, 5, 0, 1, 6, 2, 0x68, 0x69]
        #expect(try ChangeSetCodec.encode(changeSet) == expected)
        #expect(try ChangeSetCodec.decode(expected) == changeSet)
    }

    @Test("every truncation, and any trailing byte, is a malformed change set")
    func truncations() throws {
        let bytes = try ChangeSetCodec.encode(everyKindChangeSet())
        for length in 0..<bytes.count {
            #expect(throws: SyncError.self) { try ChangeSetCodec.decode(Array(bytes[0..<length])) }
        }
        #expect(throws: SyncError.self) { try ChangeSetCodec.decode(bytes + [0]) }
    }

    @Test("random corruption decodes or throws SyncError, never traps; huge counts cost no memory")
    func corruption() throws {
        let bytes = try ChangeSetCodec.encode(everyKindChangeSet())
        var random = SeededGenerator(seed: 99)
        var rejected = 0
        for _ in 0..<3000 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do { _ = try ChangeSetCodec.decode(damaged) } catch { rejected += 1 }
        }
        #expect(rejected > 1000)
        // A count of 2^63 operations in a 20-byte input is refused at once.
        let huge: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: SyncError.self) { try ChangeSetCodec.decode(huge) }
    }

    @Test("other versions, primary keys that cannot be keys and stamps of unknown devices are refused with a reason")
    func refusals() throws {
        var bytes = try ChangeSetCodec.encode(everyKindChangeSet())
        bytes[0] = 2
        #expect(throws: SyncError.self) { try ChangeSetCodec.decode(bytes) }
        let stranger = SyncStamp(clock: 9 << 16, device: SyncDeviceID(rawValue: 0xDEAD))
        var changeSet = everyKindChangeSet()
        changeSet.operations.append(SyncOperation(object: changeSet.operations[0].object, stamp: stranger, change: .create))
        #expect(throws: SyncError.self) { try ChangeSetCodec.encode(changeSet) }
        var badKey = everyKindChangeSet()
        badKey.operations[0].object.primaryKey = .double(1)
        #expect(throws: SyncError.self) { try ChangeSetCodec.encode(badKey) }
    }
}
