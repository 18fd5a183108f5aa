import Foundation
import VaultCore

// MARK: - Confinement
//
// A live vault is not thread-safe, and it is not meant to be: like a Realm, a
// `Vault` with its objects and collections belongs to one isolation domain,
// and everything it reads comes from one version that moves only at defined
// points (Vault+Versions). The domain is one of:
//
//   - a thread: the thread that opened the vault from code that is not
//     isolated to an actor (plain threads, synchronous code);
//   - a serial queue: `Vault(configuration:queue:)`; every block that queue
//     runs shares the vault, whichever thread runs it;
//   - the main queue, which is the main actor: a vault opened on the main
//     thread, in `@MainActor` code or in a block of the main queue. On Apple
//     platforms the main queue always runs on the main thread; on Linux an
//     async `main` hands the main queue to libdispatch's worker threads once it
//     first suspends, so after an `await` the main actor's code may run on
//     another thread, and the vault is still its own;
//   - an actor: a vault opened by code isolated to an actor (`Vault.open()`,
//     `Vault(configuration:)` inside an actor method, or `Vault(configuration:actor:)`).
//     It stays valid across suspension points: after an `await` the actor may
//     run on another thread, and that is still its domain. This is what Realm
//     added late (and, in its users' reports, what hurt most: "Realm accessed
//     from incorrect thread" after an executor hop); here it is the default for
//     code that runs on an actor, because the isolation is known at the call
//     (`#isolation`).
//   - frozen: a frozen vault (`freeze()`) reads one pinned version that never
//     moves; it serialises its reads behind one lock and may be used from any
//     thread or actor at once (see Freezing).
//
// The check. Swift 6 refuses most misuse at compile time: `Vault`, objects,
// `Results` and collections are not `Sendable`, so handing one to another
// isolation domain does not compile without an unsafe escape. What the
// compiler cannot see (a `nonisolated(unsafe)` variable, an `@unchecked
// Sendable` box, a vault opened in a non-isolated async function and used
// after an `await` moved the task to another thread) is refused at run time,
// in debug and release builds: every read that reaches the vault's state
// (a cached property, a query, a collection, a write) checks the domain first
// and stops the program with Realm's message, naming the class, rather than
// let two threads share a SQLite connection and a cache. The check is one
// comparison of thread identifiers for thread-confined vaults (the common
// case), a queue-specific lookup for queue-confined ones, and the runtime's
// executor check for actor-confined ones.

/// Where a vault session may be used.
enum Confinement {
    /// The thread with this identifier (`currentThreadIdentifier()`).
    case thread(UInt)
    /// Blocks of the serial queue marked with this number (see `VaultSession.confine(to:)`).
    case queue(UInt)
    /// The actor the vault was opened on (held weakly: the actor owns its vault, not the reverse).
    case actor(WeakActor)
    /// A frozen vault: any thread, any actor.
    case frozen

    /// Stops the program with Realm's message when the calling code is outside this domain.
    @inline(__always)
    func verify(_ subject: @autoclosure () -> String, path: @autoclosure () -> String) {
        switch self {
        case .thread(let owner):
            if owner != currentThreadIdentifier() { Confinement.fail(subject(), path(), "the thread that opened it") }
        case .queue(let number):
            if VaultSession.currentQueueNumber() != number { Confinement.fail(subject(), path(), "the queue it was opened for") }
        case .actor(let weak):
            guard let actor = weak.actor else {
                Confinement.fail(subject(), path(), "an actor that no longer exists")
            }
            if #available(macOS 14, iOS 17, *) {
                actor.preconditionIsolated(Confinement.message(subject(), path(), "the actor \(type(of: actor)) it was opened on"))
            }
        case .frozen:
            break
        }
    }

    static func message(_ subject: String, _ path: String, _ owner: String) -> String {
        "Vault accessed from incorrect thread: \(subject) of the vault at \(path) belongs to \(owner). "
            + "Pass a ThreadSafeReference or a frozen copy (freeze()) to other threads and actors, or open a Vault there."
    }

    static func fail(_ subject: String, _ path: String, _ owner: String) -> Never {
        preconditionFailure(message(subject, path, owner))
    }
}

/// An actor held weakly.
struct WeakActor: Sendable {
    weak var actor: (any Actor)?
    let identifier: ObjectIdentifier
    init(_ actor: any Actor) {
        self.actor = actor
        identifier = ObjectIdentifier(actor)
    }
}

/// Carries a value the compiler cannot prove `Sendable` into a task or a
/// queue block that runs in the value's own isolation domain (a vault's
/// actor, its queue). Used only where VaultKit itself guarantees that the
/// value is touched by one domain at a time.
struct ConfinedTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body` isolated to `actor` (the hop used to deliver to actor-confined vaults).
func runIsolated<T>(to actor: isolated any Actor, _ body: () throws -> T) rethrows -> T {
    try body()
}
