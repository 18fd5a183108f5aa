import Foundation
import VaultKit

// `VaultTestHelper misuse <vault> <case>` (key (hex) on stdin): commits one
// NItem, then does what Realm refuses with an exception — which VaultKit
// refuses by stopping the program with a message. The test expects this
// process to die of the trap with the message on stderr; if it lives, it
// exits 0 and prints "not refused".
//
//   wrong-thread    read a live object on a thread other than its vault's
//   wrong-actor     read a live object of an actor-confined vault from another actor
//   frozen-write    modify a frozen object inside a write of its live vault
//   frozen-observe  observe frozen results
//   wrong-queue     read a live object of a queue-confined vault from another queue
//   unmanaged-reference  make a ThreadSafeReference to an unmanaged object
//   foreign-reference    resolve a reference in a vault of another file

/// Smuggles a live object past the compiler, as app code with an unsafe
/// escape would (the misuse the runtime check must catch).
struct Smuggled<Value>: @unchecked Sendable {
    let value: Value
}

actor ItemOwner {
    func openItem(_ configuration: Vault.Configuration) throws -> Smuggled<NItem> {
        let vault = try Vault(configuration: configuration)
        guard let item = vault.object(ofType: NItem.self, forPrimaryKey: 1) else { fail("no item") }
        return Smuggled(value: item)
    }
}

actor Intruder {
    func read(_ item: Smuggled<NItem>) -> String { item.value.name }
}

func runMisuse(_ name: String, configuration: Vault.Configuration) {
    do {
        let vault = try Vault(configuration: configuration)
        try vault.write { vault.add(NItem.make(1, "a"), update: .modified) }
        guard let item = vault.object(ofType: NItem.self, forPrimaryKey: 1) else { fail("no item") }
        switch name {
        case "wrong-thread":
            let smuggled = Smuggled(value: item)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                print(smuggled.value.name)
                done.signal()
            }
            done.wait()
        case "wrong-actor":
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    let smuggled = try await ItemOwner().openItem(configuration)
                    print(await Intruder().read(smuggled))
                } catch {
                    fail("\(error)")
                }
                done.signal()
            }
            done.wait()
        case "frozen-write":
            let frozen = item.freeze()
            try vault.write { frozen.name = "b" }
        case "frozen-observe":
            let frozen = vault.objects(NItem.self).freeze()
            _ = frozen.observe { _ in }
        case "wrong-queue":
            let home = DispatchQueue(label: "home"), elsewhere = DispatchQueue(label: "elsewhere")
            let smuggled = home.sync { () -> Smuggled<NItem>? in
                guard let queueVault = try? Vault(configuration: configuration, queue: home),
                      let item = queueVault.object(ofType: NItem.self, forPrimaryKey: 1) else { return nil }
                return Smuggled(value: item)
            }
            guard let smuggled else { fail("could not open on the queue") }
            elsewhere.sync { print(smuggled.value.name) }
        case "unmanaged-reference":
            _ = ThreadSafeReference(to: NItem.make(2, "unmanaged"))
        case "foreign-reference":
            let reference = ThreadSafeReference(to: item)
            var other = configuration
            other.fileURL = configuration.fileURL?.deletingLastPathComponent().appendingPathComponent("other.vault")
            _ = try Vault(configuration: other).resolve(reference)
        default:
            fail("unknown misuse \(name)")
        }
        print("not refused")
        exit(0)
    } catch {
        fail("\(error)")
    }
}

extension NItem {
    static func make(_ id: Int, _ name: String) -> NItem {
        let item = NItem()
        item.id = id
        item.name = name
        return item
    }
}
