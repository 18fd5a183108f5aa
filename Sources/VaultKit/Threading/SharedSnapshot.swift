import Foundation
import VaultCore

/// A vault's snapshot (one version, held open on a reader connection), shared
/// by the live session that opened it and the frozen vaults made at its
/// version: the connection returns to the pool, and the version stops counting
/// as active, when the last of them lets it go.
///
/// Reads lock it only once it is shared. Before that, only the live session's
/// domain reads it (the confinement check sees to that); `isShared` is set in
/// that domain, before any frozen vault can exist, so the flag needs no lock
/// of its own for the live session to read.
final class SharedSnapshot {
    private let snapshot: DatabaseSnapshot
    /// Counts the version as alive (`maximumNumberOfActiveVersions`).
    let pin: VersionPin
    private let lock = NSRecursiveLock()
    private(set) var isShared = false

    init(_ snapshot: DatabaseSnapshot, pin: VersionPin) {
        self.snapshot = snapshot
        self.pin = pin
    }

    deinit { snapshot.close() }

    /// The commit sequence the snapshot reads.
    var sequence: UInt64 { pin.sequence }

    /// Marks the snapshot as read from more than one domain: from now on every read locks.
    func share() -> SharedSnapshot {
        isShared = true
        return self
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard isShared else { return try snapshot.read(body) }
        lock.lock()
        defer { lock.unlock() }
        return try snapshot.read(body)
    }
}
