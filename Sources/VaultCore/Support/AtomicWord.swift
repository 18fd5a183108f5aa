import CSQLite

/// One machine word read and written atomically, for checks on hot paths where
/// a lock would cost more than the work it guards: the thread inside a
/// connection, whether a fault-injection plan is armed. (Swift's `Atomic`
/// needs macOS 15 / iOS 18, above the package's floor; these are C11 atomics
/// from CSQLite's shim.)
///
/// Safe to share (`@unchecked Sendable`): the word is touched only through the
/// shim's atomic operations.
final class AtomicWord: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt>

    init(_ value: UInt = 0) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    deinit { word.deallocate() }

    /// The current value (acquire).
    func load() -> UInt { vaultkit_atomic_load_word(word) }

    /// Sets the value (release).
    func store(_ value: UInt) { vaultkit_atomic_store_word(word, value) }

    /// Sets the value to `desired` if it is `expected`; whether it did.
    func claim(from expected: UInt, to desired: UInt) -> Bool {
        vaultkit_atomic_claim_word(word, expected, desired)
    }
}
