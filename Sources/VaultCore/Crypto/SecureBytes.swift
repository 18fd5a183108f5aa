import CSodium
import Foundation

/// Secret bytes held in libsodium guarded memory.
///
/// The bytes live in a `sodium_malloc` allocation: guard pages on both sides, a
/// canary, `mlock`ed where the system allows it, excluded from core dumps, and
/// zeroed by `sodium_free` when the last reference goes away
/// (libsodium.gitbook.io/doc/memory_management).
///
/// Two protection policies exist because the two kinds of secret are used
/// differently:
/// - ``Protection/noAccessAtRest`` (master keys, data keys): the pages are
///   `PROT_NONE` except inside ``withUnsafeBytes(_:)``, so a stray read of a
///   key that is not in use faults instead of leaking.
/// - ``Protection/readOnly`` (the page-sealing subkey): read on every page
///   access from several threads at once, so it stays readable; toggling page
///   protections there would race between threads and cost a syscall per page.
///
/// `description` never shows the bytes.
///
/// `@unchecked Sendable` is safe: the pointer and length never change after
/// `init`, the bytes are only written before the instance is shared, and the
/// access-protection changes that do happen are serialised by `lock`.
final class SecureBytes: @unchecked Sendable, CustomStringConvertible {
    /// How the guarded pages are protected while nobody is reading them.
    enum Protection {
        /// `PROT_NONE` between uses; readable only inside `withUnsafeBytes`.
        case noAccessAtRest
        /// `PROT_READ` for the whole lifetime.
        case readOnly
    }

    let count: Int
    private let pointer: UnsafeMutableRawPointer
    private let protection: Protection
    // Serialises the protection toggles of `noAccessAtRest` secrets.
    private let lock = NSLock()
    private var readers = 0

    /// Allocates `count` bytes and lets `initialize` fill them while writable.
    init(
        count: Int,
        protection: Protection = .noAccessAtRest,
        initialize: (UnsafeMutablePointer<UInt8>) throws(VaultError) -> Void
    ) throws(VaultError) {
        try Sodium.ensureInitialised()
        precondition(count > 0, "SecureBytes needs at least one byte")
        guard let pointer = sodium_malloc(count) else {
            throw VaultError.cryptoUnavailable("sodium_malloc could not allocate \(count) bytes of guarded memory")
        }
        self.pointer = pointer
        self.count = count
        self.protection = protection
        do {
            try initialize(pointer.assumingMemoryBound(to: UInt8.self))
        } catch {
            sodium_free(pointer)
            throw error
        }
        switch protection {
        case .noAccessAtRest: sodium_mprotect_noaccess(pointer)
        case .readOnly: sodium_mprotect_readonly(pointer)
        }
    }

    /// Copies `bytes` into guarded memory. The caller remains responsible for
    /// wiping its own copy.
    convenience init(copying bytes: UnsafeRawBufferPointer, protection: Protection = .noAccessAtRest) throws(VaultError) {
        try self.init(count: bytes.count, protection: protection) { target in
            if let source = bytes.baseAddress { target.update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        }
    }

    /// Random bytes from the system CSPRNG, generated directly in guarded memory.
    static func random(count: Int, protection: Protection = .noAccessAtRest) throws(VaultError) -> SecureBytes {
        try SecureBytes(count: count, protection: protection) { target in
            Sodium.randomBytes(UnsafeMutableRawBufferPointer(start: target, count: count))
        }
    }

    /// Calls `body` with read access to the secret. Do not let the pointer escape.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let buffer = UnsafeRawBufferPointer(start: pointer, count: count)
        guard protection == .noAccessAtRest else { return try body(buffer) }
        lock.lock()
        if readers == 0 { sodium_mprotect_readonly(pointer) }
        readers += 1
        lock.unlock()
        defer {
            lock.lock()
            readers -= 1
            if readers == 0 { sodium_mprotect_noaccess(pointer) }
            lock.unlock()
        }
        return try body(buffer)
    }

    /// Calls `body` with a typed pointer to the secret (for libsodium calls).
    func withBytes<R, E: Error>(_ body: (UnsafePointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws(E) -> R in
            try body(UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self)))
        }
    }

    /// The secret's address, for the hot page-sealing path only (``Protection/readOnly`` secrets).
    var unsafeReadOnlyPointer: UnsafeRawPointer {
        precondition(protection == .readOnly, "only read-only secrets expose a stable pointer")
        return UnsafeRawPointer(pointer)
    }

    /// Constant-time comparison (`sodium_memcmp`).
    func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return withBytes { mine in
            other.withBytes { theirs in sodium_memcmp(mine, theirs, count) == 0 }
        }
    }

    var description: String { "SecureBytes(\(count) bytes, redacted)" }

    deinit {
        // sodium_free zeroes the region (and checks the canary) before unmapping.
        sodium_free(pointer)
    }
}
