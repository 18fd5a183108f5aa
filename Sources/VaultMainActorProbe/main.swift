// `VaultMainActorProbe <vault>` (key, hex, on stdin): a program whose `main` is
// async, as a new user writes one. Its top-level code runs on the main actor;
// on Linux, once it first suspends, the main queue (and so the main actor) is
// served by whichever libdispatch worker thread is free. It opens a vault on
// the main actor, then across many `await`s (some of them long enough for
// another thread to commit) reads, refreshes, observes and writes it, and
// prints what it saw:
//
//   threads N          distinct OS threads the main actor's code ran on
//   refreshed N        objects seen after refresh() (another thread added one)
//   delivered N        objects an observer on the main actor was told about
//   main-queue N       objects read from a block of the main queue
//   written N          objects after its own write
//
// A vault confined to the OS thread that opened it would stop the program
// ("Vault accessed from incorrect thread") at the first use after an await.

import Foundation
import VaultKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class ProbeItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("VaultMainActorProbe: \(message)\n".utf8))
    exit(1)
}

func threadNumber() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// Adds object `id` from a new thread and waits until it is committed.
func commitFromAnotherThread(_ configuration: Vault.Configuration, id: Int) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        do {
            let vault = try Vault(configuration: configuration)
            try vault.write { vault.add(ProbeItem(value: ["id": id, "name": "from a thread"])) }
        } catch {
            fail("the other thread's write: \(error)")
        }
        done.signal()
    }
    thread.start()
    done.wait()
}

guard CommandLine.arguments.count > 1 else { fail("usage: VaultMainActorProbe <vault> (key, hex, on stdin)") }
guard let hex = readLine(), hex.count == 128 else { fail("expected a 64-byte key as 128 hex digits on stdin") }
var keyBytes = Data()
var index = hex.startIndex
while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    guard let byte = UInt8(hex[index..<next], radix: 16) else { fail("the key is not hex") }
    keyBytes.append(byte)
    index = next
}
let configuration = Vault.Configuration(fileURL: URL(fileURLWithPath: CommandLine.arguments[1]), encryptionKey: keyBytes,
                                        objectTypes: [ProbeItem.self])

do {
    var threads: Set<UInt> = [threadNumber()]
    let vault = try Vault(configuration: configuration)
    try vault.write { vault.add(ProbeItem(value: ["id": 1, "name": "on the main actor"])) }

    // An observer on the main actor, told of other threads' commits on the main queue.
    var delivered = 0
    let token = vault.objects(ProbeItem.self).observe { change in
        if case .update(let results, _, _, _) = change { delivered = results.count }
    }

    // Suspend many times: each resumption may be on another thread.
    for round in 0..<40 {
        try await Task.sleep(for: .milliseconds(round % 4 == 0 ? 10 : 1))
        threads.insert(threadNumber())
        _ = vault.objects(ProbeItem.self).count
    }
    await Task.detached { commitFromAnotherThread(configuration, id: 2) }.value
    threads.insert(threadNumber())
    vault.refresh()
    print("refreshed \(vault.objects(ProbeItem.self).count)")

    // The observer hears the next commit by itself (the main queue delivers it).
    await Task.detached { commitFromAnotherThread(configuration, id: 3) }.value
    for _ in 0..<200 where delivered < 3 {
        try await Task.sleep(for: .milliseconds(10))
        threads.insert(threadNumber())
    }
    print("delivered \(delivered)")

    // A block of the main queue shares the vault too.
    let fromBlock: Int = await withCheckedContinuation { continuation in
        DispatchQueue.main.async {
            MainActor.assumeIsolated { continuation.resume(returning: vault.objects(ProbeItem.self).count) }
        }
    }
    print("main-queue \(fromBlock)")

    try await Task.sleep(for: .milliseconds(5))
    threads.insert(threadNumber())
    try vault.write { vault.add(ProbeItem(value: ["id": 4, "name": "after the awaits"])) }
    print("written \(vault.objects(ProbeItem.self).count)")
    token.invalidate()
    print("threads \(threads.count)")
} catch {
    fail("\(error)")
}
