import Foundation

/// A value guarded by a lock: the one lock helper of the package (the VFS's
/// process-wide tables, VaultKit's schema cache, default configuration and
/// ObjectId counter).
///
/// Safe to share (`@unchecked Sendable`) because every access to `value` goes
/// through `withLock`, under `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
