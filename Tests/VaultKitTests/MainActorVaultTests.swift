import Foundation
import Testing
import VaultKit
import VaultTestSupport

@Suite("Main-actor vaults: a vault opened on the main actor is the main queue's, whichever thread serves it")
struct MainActorVaultTests {
    @Test("an async main opens a vault, awaits (resuming on other threads on Linux), refreshes, hears other threads' commits, writes")
    func asyncMainUsesItsVaultAcrossAwaits() throws {
        let directory = try TemporaryDirectory("main-actor")
        let run = try runBuiltExecutable("VaultMainActorProbe", [directory.file("main.vault").path],
                                         input: testKey.map { String(format: "%02x", $0) }.joined())
        #expect(run.reason == .exit && run.status == 0, "the probe stopped: \(run.errors)")
        #expect(!run.errors.contains("incorrect thread"), "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("refreshed 2"), "\(lines)")
        #expect(lines.contains("delivered 3"), "\(lines)")
        #expect(lines.contains("main-queue 3"), "\(lines)")
        #expect(lines.contains("written 4"), "\(lines)")
        // What the test is about: on Linux the main actor's code ran on more than one thread.
        #if os(Linux)
        let threads = lines.first { $0.hasPrefix("threads ") }.flatMap { Int($0.dropFirst("threads ".count)) } ?? 0
        #expect(threads > 1, "the main actor stayed on one thread: \(lines)")
        #endif
    }
}
