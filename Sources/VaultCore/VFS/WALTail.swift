// MARK: - The torn WAL tail
//
// Power loss can leave the end of a write-ahead log half written: the last
// transaction's frames torn at a sector, cut short, zeroed, or never written.
// Stock SQLite shrugs: recovery reads the log frame by frame and stops at the
// first frame whose checksum or salts do not match, and only frames up to the
// last valid *commit* frame are part of the database. A sealed WAL would
// instead refuse the torn frame outright (it fails authentication like a
// tampered one) and make the whole vault unopenable.
//
// The rule, applied while SQLite recovers the log (it reads the header and
// then whole frames, header and page in one read: `isRecoveryRead`):
//
//   a unit that fails to open (authentication, or the file ending inside it)
//   belongs to the torn tail — and is read as zeros, which SQLite's recovery
//   takes for the end of the log — when it lies in the log's last transaction:
//   at most one authenticated commit frame of the same log (the header's
//   salts, an authenticated page) follows it, and the damaged frame is not
//   itself a commit frame with a commit after it. Otherwise the damage lies in
//   a transaction that a later commit proves was complete and synced (with
//   synchronous = FULL, VaultKit's default, SQLite syncs the log at every
//   commit): an integrity failure naming the frame, as before.
//
// "At most one", not "none": power loss may tear any frame of the last
// transaction while its commit frame reached the disk (writes are not
// ordered without a sync). The one case this cannot tell from a torn write is a
// damaged frame header that was the commit frame of the last-but-one
// transaction: both transactions are then dropped. With synchronous = NORMAL
// (no sync per commit) several transactions may be torn at once, and damage
// before the last one is reported, not dropped.
//
// What it gives an attacker: nothing that deleting or truncating the -wal file
// did not already give — dropping the transactions at the end of the log
// (rollback is outside the threat model; see SECURITY.md). What is still
// detected: any damage before a later authenticated commit, damage to the
// database file, and any damage once the log is recovered (ordinary page
// reads are never lenient: the wal-index already says those frames are valid).

/// The torn-tail rule's helpers (see the essay above).
enum WALTail {
    /// Whether SQLite reads as its WAL recovery does: the header alone, or one whole frame.
    static func isRecoveryRead(amount: Int, offset: Int64) -> Bool {
        if offset == 0 { return amount == Int(SealedFileLayout.walHeaderSize) }
        guard amount == Int(SealedFileLayout.walFrameSize), offset >= SealedFileLayout.walHeaderSize else { return false }
        return (offset - SealedFileLayout.walHeaderSize) % SealedFileLayout.walFrameSize == 0
    }

    /// Whether an opened frame header ends a transaction (its database size
    /// field is set) of the log with `salts` (bytes 16–23 of the WAL header;
    /// `nil` when the header itself could not be opened: any log).
    static func isCommitFrame(_ header: UnsafeRawPointer, salts: UInt64?) -> Bool {
        let databaseSize = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard databaseSize != 0 else { return false }
        guard let salts else { return true }
        return header.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == salts
    }

    /// The rule itself, over a log of `frameCount` frames: whether damage at
    /// frame `damaged` (0: the header) is a torn tail. `frameHeader(n)` opens
    /// frame n's header (nil: it does not open), `pageOpens(n)` says whether
    /// its page opens, `salts` are the WAL header's (nil: it does not open).
    static func isTornTail(damaged: Int64, frameCount: Int64, salts: UInt64?,
                           frameHeader: (Int64) -> UnsafeRawPointer?, pageOpens: (Int64) -> Bool) -> Bool {
        // The damaged frame's header, when it opens, says whether it ends a transaction.
        let damagedIsCommit = damaged > 0 && frameHeader(damaged).map { isCommitFrame($0, salts: salts) } == true
        var laterCommits = 0
        var candidate = damaged + 1
        while candidate <= frameCount {
            if let header = frameHeader(candidate), isCommitFrame(header, salts: salts), pageOpens(candidate) {
                laterCommits += 1
                // A transaction committed after the damaged frame's own: the damage came after a sync.
                if laterCommits >= 2 || damagedIsCommit { return false }
            }
            candidate += 1
        }
        return true
    }
}
