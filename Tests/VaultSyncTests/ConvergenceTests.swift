import Foundation
import Testing
@testable import VaultSync

/// A small, fast, seeded generator (SplitMix64): a failing history is replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One random history: devices with skewed clocks edit the same few objects,
/// go offline, and sync through a relay that duplicates and reorders deliveries.
struct RandomHistory {
    let seed: UInt64
    var random: SeededGenerator
    let clock = ManualClock()
    var devices: [MemoryReplica] = []
    var relay = TestRelay()
    var cursors: [Int] = []
    var offline: [Bool] = []
    private(set) var operationCount = 0
    private(set) var deliveries = 0
    /// Local list edits whose result differed from the edit asked for (must stay 0).
    private(set) var misplacedEdits = 0
    /// Checkpoints at which the devices disagreed (must stay 0).
    private(set) var divergentCheckpoints = 0

    init(seed: UInt64) {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        let count = Int.random(in: 3...5, using: &random)
        for index in 0..<count {
            let skew = Int64.random(in: -3 * 3_600_000...3 * 3_600_000, using: &random)
            devices.append(MemoryReplica(device: SyncDeviceID(rawValue: UInt64(index + 1) &* 0x9E37_79B9), now: clock.reader(skew: skew)))
        }
        cursors = Array(repeating: 0, count: count)
        offline = Array(repeating: false, count: count)
    }

    mutating func run(steps: Int) {
        for _ in 0..<steps {
            clock.milliseconds += UInt64.random(in: 0...50, using: &random)
            let index = Int.random(in: 0..<devices.count, using: &random)
            switch Int.random(in: 0..<40, using: &random) {
            case 39:
                // A checkpoint: everyone syncs, and must agree before the history goes on
                // (a divergence must not hide behind a later delete or clear).
                heal()
                if Set(devices.map { $0.dump() }).count != 1 { divergentCheckpoints += 1 }
            case 0...3:
                offline[index].toggle()
            case 4...11:
                if !offline[index] { sync(index) }
            default:
                edit(devices[index])
                operationCount += 1
            }
        }
    }

    /// Every device online, syncing until nothing moves.
    mutating func heal() {
        offline = offline.map { _ in false }
        for _ in 0..<3 { for index in devices.indices { sync(index) } }
    }

    mutating func sync(_ index: Int) {
        if let changeSet = devices[index].commit() { relay.upload(changeSet) }
        var batch = relay.log(from: cursors[index])
        cursors[index] = relay.count
        if Bool.random(using: &random), !batch.isEmpty { batch += batch.prefix(Int.random(in: 1...batch.count, using: &random)) }
        batch.shuffle(using: &random)
        deliveries += batch.count
        if let committed = devices[index].receive(batch) { relay.upload(committed) }
    }

    private mutating func edit(_ device: MemoryReplica) {
        let key = item(Int64.random(in: 0..<3, using: &random))
        let other = item(Int64.random(in: 0..<3, using: &random))
        guard device.state(of: key).isPresent else {
            if Int.random(in: 0..<3, using: &random) > 0 { device.create(key, values: ["title": randomString()]) }
            return
        }
        let listCount = device.list(key, "numbers").count
        switch Int.random(in: 0..<21, using: &random) {
        case 0: if Int.random(in: 0..<4, using: &random) == 0 { device.delete(key) }
        case 1: device.create(key, values: ["count": .int(Int64.random(in: 0..<100, using: &random))])
        case 2, 3: device.set(key, "title", randomString())
        case 4: device.set(key, "count", .int(Int64.random(in: 0..<100, using: &random)))
        case 5: device.set(key, "friend", device.reference(to: other).map(SyncValue.link) ?? .null)
        case 6, 7, 18, 19, 20:
            // A local edit lands where it was asked to (the order the author sees is the merged order).
            let index = Int.random(in: 0...listCount, using: &random), value = SyncValue.int(Int64.random(in: 0..<100, using: &random))
            device.listInsert(key, "numbers", at: index, value)
            if device.list(key, "numbers")[index] != value { misplacedEdits += 1 }
        case 8: if listCount > 0 { device.listRemove(key, "numbers", at: Int.random(in: 0..<listCount, using: &random)) }
        case 9, 16, 17:
            guard listCount > 1 else { return }
            let before = device.list(key, "numbers")
            let (from, to) = (Int.random(in: 0..<listCount, using: &random), Int.random(in: 0..<listCount, using: &random))
            device.listMove(key, "numbers", from: from, to: to)
            var expected = before
            expected.insert(expected.remove(at: from), at: to)
            if device.list(key, "numbers") != expected { misplacedEdits += 1 }
        case 10: if listCount > 0 { device.listSet(key, "numbers", at: Int.random(in: 0..<listCount, using: &random), .int(Int64.random(in: 100..<200, using: &random))) }
        case 11: if Int.random(in: 0..<4, using: &random) == 0 { device.clear(key, "numbers") }
        case 12:
            if let link = device.reference(to: other) {
                let count = device.list(key, "items").count
                device.listInsert(key, "items", at: Int.random(in: 0...count, using: &random), .link(link))
            }
        case 13: device.setMember(key, "tags", randomString(), present: Bool.random(using: &random))
        case 14: device.mapEntry(key, "scores", ["a", "b", "c"].randomElement(using: &random) ?? "a",
                                 Bool.random(using: &random) ? .int(Int64.random(in: 0..<10, using: &random)) : nil)
        default: if let link = device.reference(to: other) { device.setMember(key, "linked", .link(link), present: Bool.random(using: &random)) }
        }
    }

    private mutating func randomString() -> SyncValue { .string(["red", "green", "blue", "ink"].randomElement(using: &random) ?? "") }
}

/// The relay's role, synchronously: a log of sealed change sets in upload
/// order, each stored once. Devices get them back opened (authenticated and decoded).
struct TestRelay {
    let sealer: ChangeSetSealer
    private(set) var sealed: [SealedChangeSet] = []
    private var stored: Set<MemoryReplica.ChangeSetID> = []

    init() {
        // A fixed test key; every history's change sets go through the codec and the envelope.
        let key = try? SyncKey(bytes: Data((0..<32).map { UInt8($0) }))
        guard let key, let space = SyncSpaceID(bytes: Array(repeating: 7, count: 16)),
              let sealer = try? ChangeSetSealer(space: space, keys: [1: key], currentKeyID: 1) else {
            preconditionFailure("the test sealer could not be made")
        }
        self.sealer = sealer
    }

    mutating func upload(_ changeSet: ChangeSet) {
        guard stored.insert(MemoryReplica.ChangeSetID(device: changeSet.author, sequence: changeSet.sequence)).inserted else { return }
        do {
            sealed.append(try sealer.seal(changeSet))
        } catch {
            Issue.record("sealing failed: \(error)")
        }
    }

    /// The opened change sets from `start` on.
    func log(from start: Int = 0) -> [ChangeSet] {
        sealed[start...].compactMap { envelope in
            do {
                return try sealer.open(envelope)
            } catch {
                Issue.record("opening failed: \(error)")
                return nil
            }
        }
    }

    var count: Int { sealed.count }
}

@Suite("Convergence of random concurrent histories")
struct ConvergenceTests {
    static let histories = 200

    @Test("devices that applied the same change sets hold the same objects; a new device replaying the log agrees; replays change nothing")
    func randomHistoriesConverge() {
        var operations = 0, deliveries = 0, changeSets = 0
        for seed in 1...UInt64(Self.histories) {
            var history = RandomHistory(seed: seed)
            history.run(steps: Int.random(in: 40...120, using: &history.random))
            history.heal()
            operations += history.operationCount
            deliveries += history.deliveries
            changeSets += history.relay.count
            let dumps = history.devices.map { $0.dump() }
            #expect(Set(dumps).count == 1, "seed \(seed): devices disagree")
            #expect(history.divergentCheckpoints == 0, "seed \(seed): devices disagreed at a checkpoint")
            #expect(history.misplacedEdits == 0, "seed \(seed): a local list edit landed elsewhere")
            #expect(history.devices.allSatisfy { $0.waiting.isEmpty }, "seed \(seed): change sets left waiting")
            let newcomer = MemoryReplica(device: SyncDeviceID(rawValue: 0xFFFF), now: history.clock.reader())
            newcomer.receive(history.relay.log().reversed())
            #expect(newcomer.dump() == dumps.first, "seed \(seed): a device replaying the log disagrees")
            let before = history.devices[0].dump()
            history.devices[0].receive(history.relay.log())
            #expect(history.devices[0].dump() == before, "seed \(seed): a replay changed something")
            if Set(dumps).count != 1 { break }
        }
        print("convergence: \(Self.histories) histories, \(operations) local operations, \(changeSets) change sets, \(deliveries) deliveries (duplicates and reorders included)")
    }
}
