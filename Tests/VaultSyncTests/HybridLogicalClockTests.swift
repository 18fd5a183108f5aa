import Testing
@testable import VaultSync

@Suite("Hybrid logical clock")
struct HybridLogicalClockTests {
    @Test("readings always increase, also when the wall clock steps back or stands still")
    func monotonic() {
        let wall = ManualClock(1_000_000)
        var clock = HybridLogicalClock(now: wall.reader())
        var last = clock.tick()
        for step in 0..<1000 {
            if step % 7 == 0 { wall.milliseconds -= 5 } else if step % 3 == 0 { wall.milliseconds += 2 }
            let reading = clock.tick()
            #expect(reading > last)
            last = reading
        }
        // Following the wall clock when it moves forward.
        wall.milliseconds += 10_000
        #expect(clock.tick() >> 16 == wall.milliseconds)
    }

    @Test("after receiving a reading from a device hours ahead, every local reading is later than it")
    func receive() {
        let wall = ManualClock(1_000_000)
        var clock = HybridLogicalClock(now: wall.reader())
        let remote: UInt64 = (wall.milliseconds + 3 * 3_600_000) << 16 | 5
        clock.receive(remote)
        #expect(clock.tick() > remote)
        clock.receive(1)   // an older reading changes nothing
        #expect(clock.latest == remote + 1)
    }

    @Test("65,536 readings within one millisecond carry into the millisecond part")
    func counterCarry() {
        let wall = ManualClock(1_000_000)
        var clock = HybridLogicalClock(now: wall.reader())
        var readings = Set<UInt64>()
        for _ in 0..<70_000 { readings.insert(clock.tick()) }
        #expect(readings.count == 70_000)
        #expect(clock.latest >> 16 == wall.milliseconds + 1)
    }
}
