import Foundation
import Testing
import VaultCore
import VaultKit
@testable import VaultSync
import VaultTestSupport

/// Random histories of a signed space on real vaults: devices write, sync in random order,
/// join, are removed, change roles and rotate keys, all mixed. At every checkpoint the
/// members agree on the objects, the membership, the key epoch and every verdict; a
/// removed device never holds what was written after everyone had seen its removal.
@Suite("Membership changes mixed into random histories converge")
struct MembershipConvergenceTests {
    private struct History {
        var random: SeededGenerator
        let directory: TemporaryDirectory
        let relay = InProcessRelay()
        var devices: [SyncTestDevice] = []
        var identities: [DeviceIdentity] = []
        var written = 0
        /// For each removed device, the number of notes written when every device had seen its removal.
        var sealedOff: [Int: Int] = [:]
        var checkpoints = 0

        init(seed: UInt64) throws {
            random = SeededGenerator(seed: seed)
            directory = try TemporaryDirectory("membership-history-\(seed)")
            for index in 0..<5 {
                let identity = try DeviceIdentity(masterKey: try MasterKey.generate())
                identities.append(identity)
                devices.append(try SyncTestDevice(directory, "d\(index)", relay: relay, identity: identity, syncKey: index == 0 ? try SyncKey.generate() : nil))
            }
            try devices[0].synced.space.create()
        }

        func role(_ index: Int) -> SyncRole? { try? devices[index].synced.space.role() }

        mutating func step() async throws {
            let index = Int.random(in: 0..<devices.count, using: &random)
            let device = devices[index]
            switch Int.random(in: 0..<20, using: &random) {
            case 0...7:
                written += 1
                let id = "n\(written)"
                try device.write { $0.add(SyncNote(value: ["id": id, "title": "by \(index)"])) }
            case 8...13:
                try await device.sync()
            case 14, 15:
                // An owner adds a device that never was a member.
                guard role(index) == .owner else { return }
                let candidates = devices.indices.filter { (try? devices[$0].synced.space.isRemoved()) == false && role($0) == nil && $0 != 0 }
                guard let pick = candidates.randomElement(using: &random) else { return }
                let joinRole: SyncRole = [.writer, .writer, .reader, .owner].randomElement(using: &random) ?? .writer
                try? device.synced.space.add(try devices[pick].synced.space.joinRequest(), role: joinRole)
            case 16:
                // An owner removes a member (never the last owner: the rules refuse that).
                guard role(index) == .owner else { return }
                let members = (try? device.synced.space.members()) ?? []
                guard let target = members.filter({ $0.device != device.synced.device }).randomElement(using: &random),
                      let targetIndex = devices.firstIndex(where: { $0.synced.device == target.device }) else { return }
                if (try? device.synced.space.remove(device: target.device)) != nil { sealedOff[targetIndex] = nil }
            case 17:
                guard let role = role(index), role >= .writer else { return }
                try? device.synced.space.rotateSyncKey()
            case 18:
                guard role(index) == .owner, let member = try device.synced.space.members().randomElement(using: &random) else { return }
                try? device.synced.space.setRole([.reader, .writer, .owner].randomElement(using: &random) ?? .writer, for: member.person)
            default:
                try await checkpoint()
            }
        }

        /// Everyone syncs until nothing moves; the members must then agree on everything.
        mutating func checkpoint() async throws {
            for _ in 0..<4 { for device in devices { try await device.sync() } }
            checkpoints += 1
            // Writers and owners hold the same objects; a reader holds those too, and its own
            // changes, which stay on it (a reader's changes never upload).
            let members = devices.indices.filter { role($0) != nil }
            let writers = members.filter { (role($0) ?? .reader) >= .writer }
            guard let first = writers.first else { return }
            let reference = try state(first)
            for index in members.dropFirst() {
                let other = try state(index)
                #expect(other.members == reference.members, "members of d\(index) and d\(first)")
                #expect(other.epoch == reference.epoch, "epoch of d\(index) and d\(first)")
                if writers.contains(index) {
                    #expect(other.notes == reference.notes, "objects of d\(index) and d\(first)")
                } else {
                    let extra = other.notes.filter { reference.notes[$0.key] != $0.value }
                    #expect(reference.notes.allSatisfy { other.notes[$0.key] == $0.value }, "reader d\(index) lacks objects of d\(first)")
                    #expect(extra.values.allSatisfy { $0 == "by \(index)" }, "reader d\(index) holds objects nobody else has")
                }
                #expect(other.refused.subtracting(refusedOwn(index, first)) == reference.refused.subtracting(refusedOwn(index, first)),
                        "verdicts of d\(index) and d\(first)")
            }
            // A removed device: nothing written after everyone had seen its removal.
            for index in devices.indices where (try? devices[index].synced.space.isRemoved()) == true {
                let cutoff = sealedOff[index] ?? written
                sealedOff[index] = cutoff
                // (Its own notes it keeps, whenever it wrote them.)
                let held = try state(index).notes.filter { $0.value != "by \(index)" }.keys.compactMap { Int($0.dropFirst()) }
                #expect(held.allSatisfy { $0 <= cutoff }, "d\(index) holds a note written after its removal")
            }
        }

        /// Entries whose author is one of the two devices compared (a device never judges its own).
        func refusedOwn(_ a: Int, _ b: Int) -> Set<UInt64> {
            let own = Set([devices[a].synced.device, devices[b].synced.device])
            let all = ((try? devices[a].synced.refusedChangeSets()) ?? []) + ((try? devices[b].synced.refusedChangeSets()) ?? [])
            return Set(all.filter { own.contains($0.device) }.map(\.serverSequence))
        }

        func state(_ index: Int) throws -> (members: [SyncMember], epoch: UInt32, notes: [String: String], refused: Set<UInt64>) {
            let device = devices[index]
            let notes = Dictionary(uniqueKeysWithValues: try device.vault().objects(SyncNote.self).map { ($0.id, $0.title) })
            return (try device.synced.space.members(), try device.synced.space.epoch(), notes,
                    Set(try device.synced.refusedChangeSets().map(\.serverSequence)))
        }
    }

    /// Eight histories in `make test`; VAULTKIT_MEMBERSHIP_HISTORIES runs more.
    static let historyCount = UInt64(ProcessInfo.processInfo.environment["VAULTKIT_MEMBERSHIP_HISTORIES"] ?? "") ?? 8

    @Test("seeded histories of five devices: members agree at every checkpoint", arguments: 0..<historyCount)
    func historiesConverge(seed: UInt64) async throws {
        var history = try History(seed: 0x5EED_0000 + seed)
        for _ in 0..<60 { try await history.step() }
        try await history.checkpoint()
        #expect(history.checkpoints >= 1)
    }
}
