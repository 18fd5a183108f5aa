import Foundation

// MARK: - Recovering what does not open by itself
//
// A torn end of the write-ahead log is dropped automatically (see WALTail).
// What remains is damage that a later commit proves was not a torn write — a
// media error, or a file altered outside VaultKit: the vault then refuses to
// open, naming the WAL frame. `recover` makes it open again with everything
// before the damage: it cuts the log just after the last commit that precedes
// the first damaged unit, so SQLite's recovery ends there. The frames cut are
// reported (with `dryRun`, only reported), and the whole original log is kept
// beside the vault (`<vault>-wal.before-recover`) — nothing is destroyed.
//
// Damage to the database file itself cannot be cut away: the report says so,
// and a backup is the way back.

extension VaultMaintenance {
    /// What ``recover(vaultAt:key:dryRun:)`` found and did.
    public struct RecoveryReport: Sendable {
        /// The first damaged WAL unit, if any.
        public var firstDamage: IntegrityFailure?
        /// WAL frames of the current log kept (up to the last commit before the damage).
        public var keptFrames: Int
        /// Frames cut off (after that commit), and the commits among them.
        public var droppedFrames: Int
        public var droppedCommits: Int
        /// Damaged database pages: not recoverable by this tool.
        public var databaseFailures: [IntegrityFailure]
        /// Where the original log was saved (nil on a dry run or when nothing was cut).
        public var savedLog: String?
        /// Whether the vault opens after recovery (or would).
        public var isRecoverable: Bool { databaseFailures.isEmpty }
    }

    /// Cuts a damaged write-ahead log after the last commit before the damage,
    /// so that the vault opens with every transaction before it (see the essay
    /// above). Refuses while any process has the vault open.
    public static func recover(vaultAt url: URL, key: MasterKey, dryRun: Bool) throws(VaultError) -> RecoveryReport {
        let path = try existingVaultPath(url)
        try refuseIfOpenInThisProcess(path)
        let header = try VaultFileHeader.parse(try readPrefix(of: path, count: VaultFileHeader.blockSize), path: path)
        let dataKey = try header.unlock(masterKey: key, path: path)
        let sealer = UnitSealer(key: try KeyHierarchy.pageKey(dataKey: dataKey), fileSalt: header.fileSalt, suite: header.suite)
        guard let lock = try VaultUseLock.acquire(vaultPath: path, mode: .exclusive) else {
            throw VaultError.io(path: path, detail: "cannot take the vault's lock")
        }
        defer { withExtendedLifetime(lock) {} }

        var databaseFailures: [IntegrityFailure] = []
        _ = try authenticateUnits(ofFile: path, layout: .database, sealer: sealer, failures: &databaseFailures)
        var report = RecoveryReport(firstDamage: nil, keptFrames: 0, droppedFrames: 0, droppedCommits: 0, databaseFailures: databaseFailures, savedLog: nil)
        let walPath = path + "-wal"
        // An empty log (left by a checkpoint that truncated it) holds no frames: nothing to scan.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? NSNumber)?.intValue ?? 0
        guard walSize > 0, let reader = WALFileReader(path: walPath, sealer: sealer) else { return report }
        let scan = reader.scanForDamage()
        report.firstDamage = scan.firstDamage
        report.keptFrames = Int(scan.keepFrames)
        report.droppedFrames = Int(scan.frameCount - scan.keepFrames)
        report.droppedCommits = scan.commitsAfter
        guard scan.firstDamage != nil, !dryRun else { return report }
        let saved = walPath + ".before-recover"
        do {
            if FileManager.default.fileExists(atPath: saved) { try FileManager.default.removeItem(atPath: saved) }
            try FileManager.default.copyItem(atPath: walPath, toPath: saved)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: walPath))
            try handle.truncate(atOffset: UInt64(SealedFileLayout.wal.physicalSize(logicalSize: SealedFileLayout.walFrameOffset(scan.keepFrames + 1))))
            try handle.synchronize()
            try handle.close()
            // The wal-index describes the log as it was: SQLite rebuilds it from the cut log.
            try? FileManager.default.removeItem(atPath: path + "-shm")
        } catch {
            throw VaultError.io(path: walPath, detail: "could not cut the log: \(error.localizedDescription)")
        }
        report.savedLog = saved
        return report
    }
}
