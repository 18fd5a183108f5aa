import Foundation
import VaultCore
import VaultKit
import VaultSync

/// What signing costs in a signed space: sealing and signing a change set against
/// sealing alone, checking the signature and opening against opening alone (same change
/// sets, same run, order alternated per repetition), the envelope's size in each format,
/// and the time to rotate the key of a space of 10 devices and for a member to take it in.
@MainActor func runSignedSyncBenchmark() {
    let reps = option("--reps", default: 5)
    let rounds = option("--commits", default: 500)
    do {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let space = SyncSpaceID(bytes: Array(repeating: 2, count: 16)) else { return }
        let key = try SyncKey.generate()
        let identity = try DeviceIdentity.create(in: try FileKeyStore(directory: directory.appendingPathComponent("keys")), identifier: "bench")
        let unsigned = try ChangeSetSealer(space: space, keys: [0: key], currentKeyID: 0)
        let signing = try ChangeSetSealer(space: space, keys: [0: key], currentKeyID: 0, identity: identity)
        let author = identity.publicKeys.deviceID
        // A commit setting 4 properties of one object, and one inserting 1,000 objects of 6.
        let small = benchChangeSet(author: author, objects: 1, properties: 4)
        let large = benchChangeSet(author: author, objects: 1_000, properties: 6)

        print("\n## signed spaces: signing and checking a change set (same change sets, same run, \(reps) repetitions of \(rounds); medians, ratio range over repetitions)")
        print("| change set | seal | seal + sign | ratio | open | check + open | ratio | envelope v1 → v2 |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for (name, changeSet, count) in [("4 properties of one object", small, rounds), ("1,000 new objects of 6 properties", large, max(1, rounds / 50))] {
            var seal: [(Double, Double)] = [], open: [(Double, Double)] = []
            var sizes = (0, 0)
            for rep in 0..<reps {
                var sealTimes: [Bool: Double] = [:], openTimes: [Bool: Double] = [:]
                for signed in rep % 2 == 0 ? [false, true] : [true, false] {
                    let sealer = signed ? signing : unsigned
                    var start = now()
                    var envelope = try sealer.seal(changeSet)
                    for _ in 1..<count { envelope = try sealer.seal(changeSet) }
                    sealTimes[signed] = Double(now() - start) / 1000 / Double(count)
                    if signed { sizes.1 = envelope.envelope.count } else { sizes.0 = envelope.envelope.count }
                    start = now()
                    for _ in 0..<count {
                        if signed {
                            let header = try EnvelopeHeader(envelope: envelope.envelope)
                            guard header.signatureVerifies(envelope.envelope, signer: identity.publicKeys) else { throw SyncError.cryptoUnavailable }
                        }
                        _ = try sealer.open(envelope)
                    }
                    openTimes[signed] = Double(now() - start) / 1000 / Double(count)
                }
                if let plain = sealTimes[false], let signed = sealTimes[true] { seal.append((plain, signed)) }
                if let plain = openTimes[false], let signed = openTimes[true] { open.append((plain, signed)) }
            }
            let sealRatios = seal.map { $0.1 / $0.0 }, openRatios = open.map { $0.1 / $0.0 }
            print(String(format: "| %@ | %.1f µs | %.1f µs | %.2f× (%.2f–%.2f×) | %.1f µs | %.1f µs | %.2f× (%.2f–%.2f×) | %d → %d B |", name,
                         median(seal.map(\.0)), median(seal.map(\.1)), median(sealRatios), sealRatios.min() ?? 0, sealRatios.max() ?? 0,
                         median(open.map(\.0)), median(open.map(\.1)), median(openRatios), openRatios.min() ?? 0, openRatios.max() ?? 0,
                         sizes.0, sizes.1))
        }
        try printRotationFigures(directory: directory, space: space, reps: reps)
    } catch {
        print("vault-bench: \(error)")
        exit(1)
    }
}

/// A change set of `objects` new objects with `properties` properties each.
private func benchChangeSet(author: SyncDeviceID, objects: Int, properties: Int) -> ChangeSet {
    var operations: [SyncOperation] = []
    var clock: UInt64 = 1 << 20
    for index in 0..<objects {
        let object = SyncObjectReference(className: "BenchRow", primaryKey: .int(Int64(index)), incarnation: 1)
        clock += 1
        operations.append(SyncOperation(object: object, stamp: SyncStamp(clock: clock, device: author), change: .create))
        for property in 0..<properties {
            clock += 1
            operations.append(SyncOperation(object: object, stamp: SyncStamp(clock: clock, device: author),
                                            change: .set(property: "p\(property)", value: .string("value \(index) \(property)"))))
        }
    }
    return ChangeSet(author: author, sequence: 1, dependencies: [:], operations: operations)
}

/// A space of 10 devices on an in-process relay: the time for an owner to rotate the key
/// (a fresh key sealed to 10 devices, the entry signed and stored, one transaction), and
/// for a member to read the rotation (its box opened, the entry checked and applied).
@MainActor private func printRotationFigures(directory: URL, space: SyncSpaceID, reps: Int) throws {
    let relay = InProcessRelay()
    var members: [(SyncedVault, VaultSynchronizer)] = []
    for index in 0..<10 {
        let identity = try DeviceIdentity.create(in: try FileKeyStore(directory: directory.appendingPathComponent("member-keys-\(index)")), identifier: "id")
        let configuration = Vault.Configuration(fileURL: directory.appendingPathComponent("member-\(index).vault"),
                                                encryptionKey: Data(repeating: UInt8(index + 1), count: 64), objectTypes: [BenchRow.self])
        let synced = try SyncedVault(configuration: configuration,
                                     access: try SpaceAccess(space: space, syncKey: index == 0 ? try SyncKey.generate() : nil, identity: identity))
        members.append((synced, try VaultSynchronizer(vault: synced, transport: relay)))
    }
    let (owner, ownerSync) = members[0]
    try owner.space.create()
    for (member, _) in members.dropFirst() { try owner.space.add(try member.space.joinRequest(), role: .writer) }
    _ = try runRound(ownerSync)
    for (_, synchronizer) in members.dropFirst() { _ = try runRound(synchronizer) }
    var rotate: [Double] = [], take: [Double] = []
    for _ in 0..<reps {
        var start = now()
        try owner.space.rotateSyncKey()
        rotate.append(Double(now() - start) / 1e6)
        _ = try runRound(ownerSync)
        start = now()
        _ = try runRound(members[1].1)
        take.append(Double(now() - start) / 1e6)
    }
    let epoch = try members[1].0.space.epoch()
    print("\n## rotating the key of a space of 10 devices (\(reps) rotations, reaching epoch \(epoch); medians, range)")
    print("| step | time |")
    print("|---|---:|")
    print(String(format: "| making the rotation (a key sealed to 10 devices, signed, stored in one transaction) | %.2f ms (%.2f–%.2f) |", median(rotate), rotate.min() ?? 0, rotate.max() ?? 0))
    print(String(format: "| a member reading it (download, box opened, checked, applied) | %.2f ms (%.2f–%.2f) |", median(take), take.min() ?? 0, take.max() ?? 0))
}

/// Runs one synchronizer round to completion from synchronous benchmark code.
private func runRound(_ synchronizer: VaultSynchronizer) throws -> VaultSynchronizer.Round {
    let box = RoundBox()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.result = .success(try await synchronizer.synchronize()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    guard let result = box.result else { throw SyncError.cryptoUnavailable }
    return try result.get()
}

private final class RoundBox: @unchecked Sendable {
    var result: Result<VaultSynchronizer.Round, any Error>?
}
