import Foundation
import Testing
@testable import VaultSync

/// A fixed wall clock a test moves by hand (milliseconds since 1970).
final class ManualClock: @unchecked Sendable {
    // @unchecked: tests read and move it on one thread.
    var milliseconds: UInt64
    init(_ milliseconds: UInt64 = 1_700_000_000_000) { self.milliseconds = milliseconds }
    func reader(skew: Int64 = 0) -> @Sendable () -> UInt64 { { [self] in UInt64(Int64(self.milliseconds) + skew) } }
}

/// Devices that exchange change sets directly (the relay's role in these tests).
struct Pair {
    let clock = ManualClock()
    let a: MemoryReplica
    let b: MemoryReplica

    init(skewB: Int64 = 0) {
        a = MemoryReplica(device: SyncDeviceID(rawValue: 1), now: clock.reader())
        b = MemoryReplica(device: SyncDeviceID(rawValue: 2), now: clock.reader(skew: skewB))
    }

    /// Both devices send what they have to the other.
    func exchange() {
        let fromA = a.commit().map { [$0] } ?? []
        let fromB = b.commit().map { [$0] } ?? []
        a.receive(fromB)
        b.receive(fromA)
    }
}

func item(_ key: Int64) -> SyncObjectKey { SyncObjectKey(className: "Item", primaryKey: .int(key)) }

@Suite("Merge rules, one by one")
struct MergeRuleTests {
    @Test("concurrent writes to one property: the later stamp wins on both devices")
    func lastWriterWins() {
        let pair = Pair()
        pair.a.create(item(1), values: ["title": .string("first")])
        pair.exchange()
        pair.a.set(item(1), "title", .string("from a"))
        pair.clock.milliseconds += 5
        pair.b.set(item(1), "title", .string("from b"))
        pair.exchange()
        #expect(pair.a.state(of: item(1)).properties["title"]?.value == .string("from b"))
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("equal clock readings: the greater device id wins")
    func deviceTieBreak() {
        let pair = Pair()
        pair.a.create(item(1))
        pair.exchange()
        pair.clock.milliseconds += 1000   // both devices' next reading is the same
        pair.a.set(item(1), "title", .string("a"))
        pair.b.set(item(1), "title", .string("b"))
        #expect(pair.a.state(of: item(1)).properties["title"]?.stamp.clock == pair.b.state(of: item(1)).properties["title"]?.stamp.clock)
        pair.exchange()
        #expect(pair.a.state(of: item(1)).properties["title"]?.value == .string("b"))
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("a device three hours behind still wins with a write made after seeing the other's")
    func skewedClocksRespectCausality() {
        let pair = Pair(skewB: -3 * 3_600_000)
        pair.a.create(item(1), values: ["title": .string("a")])
        pair.exchange()
        pair.b.set(item(1), "title", .string("b, after seeing a"))
        pair.exchange()
        #expect(pair.a.state(of: item(1)).properties["title"]?.value == .string("b, after seeing a"))
        // Concurrent writes: the device whose clock is ahead wins while it is ahead.
        pair.clock.milliseconds += 10
        pair.a.set(item(1), "title", .string("a again"))
        pair.b.set(item(1), "title", .string("b concurrently"))
        pair.exchange()
        #expect(pair.b.state(of: item(1)).properties["title"]?.value == .string("a again"))
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("a delete wins over a concurrent update, even a later one")
    func deleteWins() {
        let pair = Pair()
        pair.a.create(item(1), values: ["title": .string("x")])
        pair.exchange()
        pair.a.delete(item(1))
        pair.clock.milliseconds += 60_000
        pair.b.set(item(1), "title", .string("later update"))
        pair.exchange()
        #expect(!pair.a.state(of: item(1)).isPresent && !pair.b.state(of: item(1)).isPresent)
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("a create concurrent with a delete stays deleted; a create after seeing the delete revives the key with fresh values")
    func createAfterDelete() {
        let pair = Pair()
        pair.a.create(item(1), values: ["title": .string("old"), "count": .int(1)])
        pair.exchange()
        pair.a.delete(item(1))
        pair.exchange()
        pair.b.create(item(1), values: ["title": .string("new")])
        pair.exchange()
        #expect(pair.a.state(of: item(1)).isPresent)
        #expect(pair.a.state(of: item(1)).properties["count"] == nil)
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("two devices creating one primary key get one object, merged property by property")
    func createMerges() {
        let pair = Pair()
        pair.a.create(item(7), values: ["title": .string("a"), "count": .int(1)])
        pair.clock.milliseconds += 1
        pair.b.create(item(7), values: ["title": .string("b")])
        pair.exchange()
        #expect(pair.a.state(of: item(7)).properties["title"]?.value == .string("b"))
        #expect(pair.a.state(of: item(7)).properties["count"]?.value == .int(1))
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("concurrent inserts at one index are all kept, the earlier stamp first; concurrent appends too")
    func concurrentInserts() {
        let pair = Pair()
        pair.a.create(item(1))
        pair.a.listInsert(item(1), "numbers", at: 0, .int(10))
        pair.a.listInsert(item(1), "numbers", at: 1, .int(20))
        pair.exchange()
        pair.a.listInsert(item(1), "numbers", at: 1, .int(1))
        pair.clock.milliseconds += 1
        pair.b.listInsert(item(1), "numbers", at: 1, .int(2))
        pair.a.listInsert(item(1), "numbers", at: 4, .int(99))   // out of range: ignored
        pair.a.listInsert(item(1), "numbers", at: 3, .int(30))
        pair.b.listInsert(item(1), "numbers", at: 3, .int(40))
        pair.exchange()
        #expect(pair.a.list(item(1), "numbers") == [.int(10), .int(1), .int(2), .int(20), .int(30), .int(40)])
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("a removal wins over a concurrent move and a concurrent replacement; of two moves the later wins")
    func eraseAndMoves() {
        let pair = Pair()
        pair.a.create(item(1))
        for (index, value) in [1, 2, 3, 4].enumerated() { pair.a.listInsert(item(1), "numbers", at: index, .int(Int64(value))) }
        pair.exchange()
        pair.a.listRemove(item(1), "numbers", at: 0)
        pair.b.listMove(item(1), "numbers", from: 0, to: 3)
        pair.b.listSet(item(1), "numbers", at: 0, .int(100))   // element 1 moved to index 3 on b: this sets element 2
        pair.exchange()
        #expect(pair.a.list(item(1), "numbers") == [.int(100), .int(3), .int(4)])
        pair.a.listMove(item(1), "numbers", from: 0, to: 2)
        pair.clock.milliseconds += 1
        pair.b.listMove(item(1), "numbers", from: 0, to: 1)
        pair.exchange()
        #expect(pair.a.list(item(1), "numbers") == [.int(3), .int(100), .int(4)])
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("a clear discards concurrent inserts; of two clears the later wins and inserts after it survive")
    func clears() {
        let pair = Pair()
        pair.a.create(item(1))
        pair.a.listInsert(item(1), "numbers", at: 0, .int(1))
        pair.exchange()
        pair.a.clear(item(1), "numbers")
        pair.b.listInsert(item(1), "numbers", at: 1, .int(2))
        pair.exchange()
        #expect(pair.a.list(item(1), "numbers") == [])
        pair.a.clear(item(1), "numbers")
        pair.a.listInsert(item(1), "numbers", at: 0, .int(3))
        pair.clock.milliseconds += 1
        pair.b.clear(item(1), "numbers")
        pair.b.listInsert(item(1), "numbers", at: 0, .int(4))
        pair.exchange()
        #expect(pair.a.list(item(1), "numbers") == [.int(4)])
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("set members and map keys merge one by one, last writer wins")
    func setsAndMaps() {
        let pair = Pair()
        pair.a.create(item(1))
        pair.a.setMember(item(1), "tags", .string("x"), present: true)
        pair.a.mapEntry(item(1), "scores", "k", .int(1))
        pair.exchange()
        pair.a.setMember(item(1), "tags", .string("x"), present: false)
        pair.a.setMember(item(1), "tags", .string("y"), present: true)
        pair.clock.milliseconds += 1
        pair.b.setMember(item(1), "tags", .string("x"), present: true)
        pair.b.mapEntry(item(1), "scores", "k", nil)
        pair.b.mapEntry(item(1), "scores", "j", .int(2))
        pair.exchange()
        let tags = pair.a.state(of: item(1)).collections["tags"]?.members.filter(\.value.isPresent).keys
        #expect(Set(tags ?? [:].keys) == [.string("x"), .string("y")])
        #expect(pair.a.state(of: item(1)).collections["scores"]?.entries["k"]?.value == nil)
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("links to a deleted object read as nil and leave lists and sets; a re-created key does not revive them")
    func linksToDeletedObjects() throws {
        let pair = Pair()
        pair.a.create(item(1))
        pair.a.create(item(2))
        let target = try #require(pair.a.reference(to: item(2)))
        pair.a.set(item(1), "friend", .link(target))
        pair.a.listInsert(item(1), "items", at: 0, .link(target))
        pair.a.setMember(item(1), "linked", .link(target), present: true)
        pair.a.mapEntry(item(1), "byName", "t", .link(target))
        pair.exchange()
        pair.b.delete(item(2))
        pair.exchange()
        #expect(pair.a.list(item(1), "items") == [])
        #expect(pair.a.dump().contains("friend = nil"))
        #expect(pair.a.dump().contains("[t: nil]"))
        pair.a.create(item(2))
        pair.exchange()
        #expect(pair.b.list(item(1), "items") == [])
        #expect(pair.a.dump() == pair.b.dump())
    }

    @Test("change sets delivered twice or out of order are applied once, in causal order")
    func exactlyOnceCausal() {
        let clock = ManualClock()
        let a = MemoryReplica(device: SyncDeviceID(rawValue: 1), now: clock.reader())
        let b = MemoryReplica(device: SyncDeviceID(rawValue: 2), now: clock.reader())
        let c = MemoryReplica(device: SyncDeviceID(rawValue: 3), now: clock.reader())
        a.create(item(1), values: ["count": .int(1)])
        let first = a.commit()
        a.listInsert(item(1), "numbers", at: 0, .int(5))
        let second = a.commit()
        b.receive([first, second].compactMap { $0 })
        b.listInsert(item(1), "numbers", at: 0, .int(4))   // anchored on a's element
        let fromB = b.commit()
        c.receive([fromB, second, first, second, fromB].compactMap { $0 })
        #expect(c.applied == [a.device: 1, b.device: 1].merging([:]) { x, _ in x }.merging([SyncDeviceID(rawValue: 1): 2]) { _, y in y })
        #expect(c.list(item(1), "numbers") == [.int(4), .int(5)])
        #expect(c.waiting.isEmpty)
        // Withheld predecessor: b's change set waits until a's arrive.
        let d = MemoryReplica(device: SyncDeviceID(rawValue: 4), now: clock.reader())
        d.receive([fromB].compactMap { $0 })
        #expect(d.waiting.count == 1 && d.objects.isEmpty)
        d.receive([first, second].compactMap { $0 })
        #expect(d.dump() == c.dump())
    }
}
