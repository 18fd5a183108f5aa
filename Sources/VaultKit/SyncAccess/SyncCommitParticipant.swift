import Foundation
import VaultCore

// MARK: - The sync binding's access to a vault
//
// Sync (the `VaultSync` module) records every local commit of a synced vault
// as a change set and writes remote change sets into it. It needs three
// things the public API does not give, and this folder gives them as SPI
// (`@_spi(VaultSync) import VaultKit`), so that apps never see them:
//
//   1. A word at each commit, inside the write transaction and before it
//      commits: which rows of which classes were inserted, deleted or written. It comes from change capture (ChangeCapture),
//      which is forced on for a file while a participant is registered. What
//      the participant writes in its own tables commits atomically with the
//      app's write, and a throw rolls the whole transaction back.
//   2. Rows as stored values (columns, links as row ids, collection entries),
//      read on the transaction's own connection.
//   3. Writes by property name that go through the same paths as the app's
//      own (change capture told first), so observers of remote changes get
//      exactly the notifications a local write would give them.

/// The rows one write transaction changed, by class name (SPI for `VaultSync`).
@_spi(VaultSync)
public struct CommittedRows: Sendable, Equatable {
    /// Rows inserted, by class.
    public var inserted: [String: Set<Int64>] = [:]
    /// Rows deleted, by class.
    public var deleted: [String: Set<Int64>] = [:]
    /// Rows updated in place, by class (by VaultKit's statements or by foreign-key actions).
    public var written: [String: Set<Int64>] = [:]

    /// No rows.
    public init() {}
}

/// Told of every commit of a vault file made in this process, inside its write
/// transaction (SPI for `VaultSync`).
@_spi(VaultSync)
public protocol VaultCommitParticipant: AnyObject, Sendable {
    /// The transaction of `vault` is about to commit with `rows` changed.
    /// Reads and writes through `vault` are part of the transaction; a thrown
    /// error rolls it back and `commitWrite()` throws it.
    func vaultWillCommit(_ vault: Vault, rows: CommittedRows) throws
}

extension ChangeCoordinator {
    /// The participants registered for the file, weakly held.
    private static let participants = Locked<[String: WeakParticipant]>([:])

    private final class WeakParticipant: @unchecked Sendable {
        weak var participant: (any VaultCommitParticipant)?
        init(_ participant: any VaultCommitParticipant) { self.participant = participant }
    }

    static func participant(for path: String) -> (any VaultCommitParticipant)? {
        participants.withLock { $0[path]?.participant }
    }

    static func setParticipant(_ participant: (any VaultCommitParticipant)?, for path: String) {
        participants.withLock { all in
            all = all.filter { $0.value.participant != nil }
            all[path] = participant.map(WeakParticipant.init)
        }
    }
}

extension Vault {
    /// Registers (or, with nil, removes) the participant told of every commit
    /// of this vault's file in this process (SPI for `VaultSync`). It is held
    /// weakly: it stops being told when it is released.
    @_spi(VaultSync)
    public func setCommitParticipant(_ participant: (any VaultCommitParticipant)?) {
        ChangeCoordinator.setParticipant(participant, for: path)
    }

    /// The participant of this vault's file, if one is registered.
    var commitParticipant: (any VaultCommitParticipant)? { ChangeCoordinator.participant(for: path) }

    /// What change capture recorded, as the participant reads it.
    func committedRows(_ changes: TransactionChanges) -> CommittedRows {
        var rows = CommittedRows()
        for (table, change) in changes.tables where !table.hasPrefix("_vk_") && !table.hasPrefix("_vaultkit_") {
            if !change.inserted.isEmpty { rows.inserted[table] = change.inserted }
            if !change.deleted.isEmpty { rows.deleted[table] = change.deleted }
            if !change.written.isEmpty { rows.written[table] = Set(change.written.keys) }
        }
        return rows
    }
}
