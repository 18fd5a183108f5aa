import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

/// A random history on real vaults: devices with clocks hours apart edit the
/// same few objects through VaultKit's object API, sync through a relay now
/// and then, and receive each other's change sets duplicated and reordered.
struct VaultHistory {
    let seed: UInt64
    var random: SeededGenerator
    let directory: TemporaryDirectory
    let relay = InProcessRelay()
    var devices: [SyncTestDevice] = []
    private(set) var operations = 0
    private(set) var directDeliveries = 0
    /// List inserts before the last element (where a misplaced anchor would show).
    private(set) var middleInserts = 0
    /// Set members removed (where a lost removal would show).
    private(set) var memberRemovals = 0
    /// Moments at which a device's rows and its merge states disagreed (must stay 0).
    private(set) var unfaithfulMoments: [String] = []

    init(seed: UInt64) throws {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        directory = try TemporaryDirectory("sync-history")
        for index in 0..<Int.random(in: 3...4, using: &random) {
            let skew = Int64.random(in: -3 * 3_600_000...3 * 3_600_000, using: &random)
            devices.append(try SyncTestDevice(directory, "d\(index)", relay: relay, now: {
                UInt64(max(0, Int64(HybridLogicalClock.wallClockMilliseconds()) + skew))
            }))
        }
    }

    mutating func run(steps: Int) async throws {
        for _ in 0..<steps {
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            switch Int.random(in: 0..<20, using: &random) {
            case 0...2:
                try await device.sync()
            case 3:
                // Another device's change sets straight from its outbox, duplicated and shuffled.
                let other = devices[Int.random(in: 0..<devices.count, using: &random)]
                var batch = try other.synced.pendingChangeSets()
                batch += batch.prefix(Int.random(in: 0...batch.count, using: &random))
                batch.shuffle(using: &random)
                directDeliveries += batch.count
                try device.synced.apply(batch)
            default:
                try edit(device)
                operations += 1
                // Half the time the edit becomes a change set at once (and is checked below, before
                // any merge could hide a lost edit); otherwise it coalesces with the next ones.
                if Bool.random(using: &random) { continue }
                _ = try device.synced.pendingChangeSets()
            }
            // Once local commits are recorded (by a merge or an upload), the rows show what the merge states say.
            let (rows, states) = (try device.synced.dump(), try device.synced.stateDump())
            if rows != states, unfaithfulMoments.count < 3 { unfaithfulMoments.append("rows:\n\(rows)\nstates:\n\(states)") }
        }
    }

    /// Everyone uploads and downloads until nothing moves.
    func heal() async throws {
        for _ in 0..<2 { for device in devices { try await device.sync() } }
    }

    private mutating func edit(_ device: SyncTestDevice) throws {
        let vault = try device.vault()
        let noteID = "n\(Int.random(in: 0..<2, using: &random))"
        let personID = Int.random(in: 0..<2, using: &random)
        let drawn = Int.random(in: 0..<23, using: &random)
        // List inserts more often, so there are elements to edit.
        let choice = drawn >= 19 ? 7 : drawn
        let word = ["red", "green", "blue"][Int.random(in: 0..<3, using: &random)]
        let number = Int.random(in: -5...5, using: &random)
        let position = Int.random(in: 0..<8, using: &random)
        try vault.write {
            let note = vault.object(ofType: SyncNote.self, forPrimaryKey: noteID)
            let person = vault.object(ofType: SyncPerson.self, forPrimaryKey: personID)
            switch (note == nil && choice != 1 && choice != 3 ? 0 : choice, note) {
            case (0, _):   // also whenever the note to edit is missing

                let tags = (0..<(abs(number) % 4)).map { "\(word)\($0)" }
                vault.create(SyncNote.self, value: ["id": noteID, "title": word, "rank": number, "tags": tags], update: .modified)
            case (1, _): vault.create(SyncPerson.self, value: ["id": personID, "name": word], update: .modified)
            case (2, let note?): if number > 2 { vault.delete(note) } else { note.tags.append(word) }
            case (3, _): if let person { vault.delete(person) }
            case (4, let note?): note.title = word
            case (5, let note?): note.score = number == 0 ? nil : Double(number) / 4
            case (6, let note?): note.author = person
            case (7, let note?):
                let index = position % (note.tags.count + 1)
                if index < note.tags.count { middleInserts += 1 }
                note.tags.insert(word, at: index)
            case (8, let note?): if !note.tags.isEmpty { note.tags.remove(at: position % note.tags.count) }
            case (9, let note?): if note.tags.count > 1 { note.tags.move(from: position % note.tags.count, to: 0) }
            case (10, let note?): if !note.tags.isEmpty { note.tags[position % note.tags.count] = word }
            case (11, let note?): if number > 4 { note.tags.removeAll() } else { note.rank = number }
            case (12, let note?):
                if number >= 0 {
                    note.labels.insert(word)
                } else {
                    if note.labels.contains(word) { memberRemovals += 1 }
                    note.labels.remove(word)
                }
            case (13, let note?): if number >= -2 { note.counts[word] = number } else { note.counts.removeObject(for: word) }
            case (14, let note?): if let person { note.related.append(person) }
            case (15, let note?): if !note.related.isEmpty { note.related.remove(at: position % note.related.count) }
            case (18, let note?):
                switch position % 4 {
                case 0: note.extra = number > 0 ? .int(number) : .string(word)
                case 1: note.extra = person.map { .object($0) } ?? .none
                case 2: note.extra = .fromArray([.int(number), .fromDictionary([word: person.map { .object($0) } ?? .double(Double(number))])])
                default: note.extras.insert(number > 0 ? .data(Data(word.utf8)) : .bool(number == 0), at: position % (note.extras.count + 1))
                }
            case (17, let note?):
                switch position % 4 {
                case 0: note.stops.insert(SyncStop(value: ["name": word, "minutes": number]), at: position % (note.stops.count + 1))
                case 1: if !note.stops.isEmpty { note.stops[position % note.stops.count].minutes = number }
                case 2: if !note.stops.isEmpty { note.stops.remove(at: position % note.stops.count) }
                default: if number > 0 { note.stopsByDay[word] = SyncStop(value: ["name": word, "minutes": number]) } else { note.stopsByDay.removeObject(for: word) }
                }
            case (16, let note?):
                switch position % 4 {
                case 0: note.place = number > 3 ? nil : SyncPlace(value: ["city": word])
                case 1: note.place?.city = word
                case 2: note.place?.zip = number == 0 ? nil : number
                default: note.place?.geo = number > 2 ? nil : SyncGeo(value: ["latitude": Double(number)])
                }
            default: break
            }
        }
    }
}

@Suite("Synced vaults: random concurrent histories converge")
struct VaultConvergenceTests {
    @Test("devices that exchanged every change set hold byte-identical dumps; a new device downloading the log agrees")
    func randomVaultHistoriesConverge() async throws {
        var operations = 0
        var deliveries = 0
        var middleInserts = 0
        var memberRemovals = 0
        let histories = 16
        for seed in 1...UInt64(histories) {
            var history = try VaultHistory(seed: seed &* 0x5851_F42D)
            try await history.run(steps: 150)
            try await history.heal()
            let dumps = try history.devices.map { try $0.synced.dump() }
            #expect(Set(dumps).count == 1, "seed \(history.seed): the devices disagree")
            #expect(history.unfaithfulMoments.isEmpty, "seed \(history.seed): rows and states disagree: \(history.unfaithfulMoments.first ?? "")")
            for device in history.devices { #expect(try device.synced.pendingChangeSets().isEmpty, "seed \(history.seed): unsent changes") }
            let latecomer = try SyncTestDevice(history.directory, "late", relay: history.relay)
            try await latecomer.sync()
            #expect(try latecomer.synced.dump() == dumps[0], "seed \(history.seed): a new device disagrees")
            operations += history.operations
            deliveries += history.directDeliveries
            middleInserts += history.middleInserts
            memberRemovals += history.memberRemovals
        }
        print("vault histories: \(histories), local edits: \(operations), direct deliveries: \(deliveries), list inserts before the end: \(middleInserts), set members removed: \(memberRemovals)")
        #expect(operations > histories * 30)
    }
}
