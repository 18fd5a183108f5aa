import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Operations on a vault file as a whole, for operators and tools (`vault`
/// uses these): key rotation, rekeying, inspection and verification.
///
/// Each one that changes the file needs the vault to itself: it takes the
/// vault's use lock exclusively and throws ``VaultError/inUse(path:detail:)``
/// while any ``VaultDatabase`` in any process has it open.
///
/// ## Topics
/// - ``rotateMasterKey(ofVaultAt:from:to:)``
/// - ``rekey(vaultAt:from:to:progress:)``
/// - ``inspect(vaultAt:)``
/// - ``authenticate(vaultAt:key:progress:)``
public enum VaultMaintenance {
    // MARK: - Master-key rotation

    /// Rotates the master key in O(1), whatever the vault's size: rewraps the
    /// data key under `newKey` into the inactive key slot, fsyncs, then erases
    /// the old slot. A crash at any instant leaves a vault that opens with
    /// exactly one of the two keys, with all its data.
    ///
    /// A rewrap is not revocation: whoever kept the old key and an old copy of
    /// the header can still unwrap the data key. After a suspected compromise,
    /// use ``rekey(vaultAt:from:to:progress:)``.
    public static func rotateMasterKey(ofVaultAt url: URL, from currentKey: MasterKey, to newKey: MasterKey) throws(VaultError) {
        let path = try existingVaultPath(url)
        // A file that is not a vault is refused before its lock file is made (nothing left behind).
        _ = try VaultFileHeader.parse(try readPrefix(of: path, count: VaultFileHeader.blockSize), path: path)
        guard let lock = try VaultUseLock.acquire(vaultPath: path, mode: .exclusive) else {
            throw VaultError.io(path: path, detail: "cannot take the vault's lock")
        }
        defer { withExtendedLifetime(lock) {} }
        let db = try Database.open(path: path, vfs: VaultVFS.name, readOnly: false,
                                   context: VaultRegistry.OpenContext(masterKey: currentKey, mayCreate: false))
        do {
            try db.transaction(.immediate) { db in try installMasterKey(on: db, from: currentKey, to: newKey) }
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError.io(path: path, detail: "\(error)")
        }
    }

    /// Rewraps on an open connection inside its write transaction.
    static func installMasterKey(on db: Database, from currentKey: MasterKey, to newKey: MasterKey) throws(VaultError) {
        try installMasterKey(on: db, MasterKeyInstallation(currentKey: currentKey, newKey: newKey))
    }

    #if VAULTKIT_TEST_SEAMS
    /// Test seam (debug builds only): rotates but stops before erasing the old key slot,
    /// the state a crash between the two slot writes leaves.
    static func installMasterKey(on db: Database, from currentKey: MasterKey, to newKey: MasterKey, stopBeforeErasingOldSlot: Bool) throws(VaultError) {
        let request = MasterKeyInstallation(currentKey: currentKey, newKey: newKey)
        request.stopBeforeErasingOldSlot = stopBeforeErasingOldSlot
        try installMasterKey(on: db, request)
    }
    #endif

    private static func installMasterKey(on db: Database, _ request: MasterKeyInstallation) throws(VaultError) {
        // Reading the schema proves the current key opens the vault's pages.
        _ = try db.fetchOne("SELECT count(*) FROM sqlite_schema")
        let status = withExtendedLifetime(request) {
            sqlite3_file_control(db.handle, "main", vaultkitFileControlInstallMasterKey, Unmanaged.passUnretained(request).toOpaque())
        }
        if let failure = request.failure { throw failure }
        guard status == SQLITE_OK else {
            throw VaultError.sqlite(SQLiteError(extendedCode: status, message: "the vault VFS did not rotate the key"))
        }
    }

    // MARK: - Rekey

    /// Re-encrypts every page under a fresh data key (and `newKey` as master key,
    /// or the current one when `nil`).
    ///
    /// The vault is copied through the VFS into a new file beside it
    /// (`VACUUM INTO`), which is fsynced and then renamed over the original; the
    /// directory is fsynced last. Until the rename the original is untouched;
    /// after it, the new file is complete. A crash at any instant leaves either
    /// the old vault (old key) or the new one (new key), with all committed data.
    /// - Throws: ``VaultError/inUse(path:detail:)`` while any process has the vault open.
    public static func rekey(vaultAt url: URL, from currentKey: MasterKey, to newKey: MasterKey?,
                             progress: ((_ bytesWritten: Int64, _ bytesTotal: Int64) -> Void)? = nil) throws(VaultError) {
        let path = try existingVaultPath(url)
        _ = try VaultFileHeader.parse(try readPrefix(of: path, count: VaultFileHeader.blockSize), path: path)
        guard let lock = try VaultUseLock.acquire(vaultPath: path, mode: .exclusive) else {
            throw VaultError.io(path: path, detail: "cannot take the vault's lock")
        }
        defer { withExtendedLifetime(lock) {} }
        let targetKey = newKey ?? currentKey
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        removeAbandonedCopies(of: name, in: directory)
        let temporary = directory + "/." + name + ".vaultkit-rekey-" + Sodium.randomBytes(count: 8).map { String(format: "%02x", $0) }.joined()
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }

        do {
            var source: Database? = try Database.open(
                path: path, vfs: VaultVFS.name, readOnly: false,
                context: VaultRegistry.OpenContext(masterKey: currentKey, mayCreate: false))
            guard let db = source else { return }
            _ = try db.fetchOne("SELECT count(*) FROM sqlite_schema")
            let total = Int64(fileLength(path) ?? 0)
            let reporter = progress.map { report in RekeyProgress(temporary: temporary, total: total, report: report) }
            if let reporter { reporter.install(on: db) }
            defer { reporter?.remove(from: db) }
            try VaultRegistry.$openContext.withValue(VaultRegistry.OpenContext(masterKey: targetKey, mayCreate: true)) { () throws in
                try db.execute("VACUUM INTO ?", arguments: [.text(temporary)])
            }
            progress?(total, total)
            do {
                // The copy starts in rollback-journal mode: make it a WAL vault before it replaces anything.
                let copy = try Database.open(path: temporary, vfs: VaultVFS.name, readOnly: false,
                                             context: VaultRegistry.OpenContext(masterKey: targetKey, mayCreate: false))
                try copy.execute("PRAGMA synchronous = FULL")
                try copy.execute("PRAGMA journal_mode = WAL")
                guard try copy.pragmaValue("quick_check").string == "ok" else {
                    throw VaultError.integrity(IntegrityFailure(path: temporary, location: .databaseStructure, reason: "the new copy failed SQLite's quick check"))
                }
            }
            try VaultCreation.syncFile(temporary)
            // Closing the last connection checkpoints and removes the old WAL.
            source = nil
            if let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal"),
               let size = attributes[.size] as? NSNumber, size.intValue > 0 {
                throw VaultError.inUse(path: path, detail: "its WAL could not be checkpointed")
            }
            unlink(path + "-shm")
            guard rename(temporary, path) == 0 else {
                throw VaultError.io(path: path, detail: "cannot replace the vault (\(String(cString: strerror(errno))))")
            }
            VaultCreation.syncDirectory(directory)
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError.io(path: path, detail: "\(error)")
        }
    }

    /// Removes copies a crashed rekey left behind (safe: the caller holds the exclusive lock).
    private static func removeAbandonedCopies(of name: String, in directory: String) {
        let prefix = "." + name + ".vaultkit-rekey-"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where entry.hasPrefix(prefix) {
            unlink(directory + "/" + entry)
        }
    }

    // MARK: - Inspection (no key)

    /// What `vault info` shows: the header fields and sizes, read without a key.
    public struct VaultInfo: Sendable, Equatable {
        /// The state of one key slot.
        public enum SlotState: Sendable, Equatable {
            case empty
            case damaged
            case valid(generation: UInt64)
        }
        public var path: String
        public var formatVersion: Int
        public var cipherSuite: String
        public var pageSize: Int
        public var reservedBytesPerPage: Int
        public var fileSize: Int64
        public var pageCount: Int64
        public var walSize: Int64
        public var walFrameCount: Int64
        public var slots: [SlotState]
    }

    /// Reads the header and sizes of a vault without its key.
    /// - Throws: ``VaultError/misuse(_:)`` if this process has the vault open
    ///   (reading the file directly would release SQLite's locks on it).
    public static func inspect(vaultAt url: URL) throws(VaultError) -> VaultInfo {
        let path = try existingVaultPath(url)
        try refuseIfOpenInThisProcess(path)
        let bytes = try readPrefix(of: path, count: VaultFileHeader.blockSize)
        let header = try VaultFileHeader.parse(bytes, path: path)
        let fileSize = Int64(fileLength(path) ?? 0)
        let walSize = Int64(fileLength(path + "-wal") ?? 0)
        let walLogical = SealedFileLayout.wal.logicalSize(physicalSize: walSize)
        let frames = walLogical > SealedFileLayout.walHeaderSize ? (walLogical - SealedFileLayout.walHeaderSize) / SealedFileLayout.walFrameSize : 0
        return VaultInfo(
            path: path, formatVersion: Int(VaultFileHeader.formatVersion), cipherSuite: header.suite.description,
            pageSize: VaultFileHeader.pageSize, reservedBytesPerPage: VaultFileHeader.reservedBytesPerPage,
            fileSize: fileSize, pageCount: max(0, fileSize - Int64(VaultFileHeader.blockSize)) / Int64(VaultFileHeader.pageSize),
            walSize: walSize, walFrameCount: frames,
            slots: VaultFileHeader.slotStates(bytes))
    }

    // MARK: - Verification

    /// What `vault verify` found.
    public struct VerificationReport: Sendable {
        /// Database pages authenticated (every page in the file).
        public var databasePages: Int
        /// WAL frames authenticated (every frame in the file, current or stale).
        public var walFrames: Int
        /// Every unit that failed, in file order (torn-tail units excepted).
        public var failures: [IntegrityFailure]
        /// WAL units of a torn tail: the end of a transaction that power loss cut
        /// short, which SQLite's recovery drops (see SECURITY.md). Not failures.
        public var tornTail: [IntegrityFailure] = []
        /// SQLite's `PRAGMA integrity_check` messages; empty when it reports "ok"
        /// (not run when pages failed authentication).
        public var integrityProblems: [String]

        public init(databasePages: Int, walFrames: Int, failures: [IntegrityFailure], tornTail: [IntegrityFailure] = [], integrityProblems: [String]) {
            self.databasePages = databasePages
            self.walFrames = walFrames
            self.failures = failures
            self.tornTail = tornTail
            self.integrityProblems = integrityProblems
        }

        /// Whether the vault passed.
        public var isIntact: Bool { failures.isEmpty && integrityProblems.isEmpty }
    }

    /// Authenticates every page of the database and every frame of the WAL
    /// (not only what SQLite would read), then runs SQLite's integrity check.
    /// - Throws: ``VaultError/wrongKey(path:)`` and header errors; unit failures
    ///   are reported, not thrown.
    public static func authenticate(vaultAt url: URL, key: MasterKey,
                                    progress: ((_ bytesDone: Int64, _ bytesTotal: Int64) -> Void)? = nil) throws(VaultError) -> VerificationReport {
        let path = try existingVaultPath(url)
        try refuseIfOpenInThisProcess(path)
        let header = try VaultFileHeader.parse(try readPrefix(of: path, count: VaultFileHeader.blockSize), path: path)
        let dataKey = try header.unlock(masterKey: key, path: path)
        let sealer = UnitSealer(key: try KeyHierarchy.pageKey(dataKey: dataKey), fileSalt: header.fileSalt, suite: header.suite)
        var failures: [IntegrityFailure] = []
        let total = Int64(fileLength(path) ?? 0) + Int64(fileLength(path + "-wal") ?? 0)
        let pages = try authenticateUnits(ofFile: path, layout: .database, sealer: sealer, failures: &failures) { done in
            progress?(done, total)
        }
        let databaseBytes = Int64(fileLength(path) ?? 0)
        var frames = 0
        var tornTail: [IntegrityFailure] = []
        if FileManager.default.fileExists(atPath: path + "-wal") {
            var walFailures: [IntegrityFailure] = []
            let units = try authenticateUnits(ofFile: path + "-wal", layout: .wal, sealer: sealer, failures: &walFailures) { done in
                progress?(databaseBytes + done, total)
            }
            frames = max(0, (units - 1) / 2)
            let torn = WALFileReader(path: path + "-wal", sealer: sealer).map { reader in walFailures.filter(reader.isTornTail) } ?? []
            tornTail = torn
            failures += walFailures.filter { failure in !torn.contains { $0.location == failure.location } }
        }
        var problems: [String] = []
        if failures.isEmpty {
            // SQLite makes -wal and -shm files for the read; a vault that had none is left without them.
            let hadWAL = FileManager.default.fileExists(atPath: path + "-wal"), hadSHM = FileManager.default.fileExists(atPath: path + "-shm")
            defer { if !hadWAL && !hadSHM { removeEmptyLogFiles(of: path) } }
            do {
                var configuration = VaultDatabase.Configuration(fileURL: URL(fileURLWithPath: path), masterKey: key)
                configuration.readOnly = true
                let vault = try VaultDatabase(configuration: configuration)
                defer { vault.close() }
                let rows = try vault.read { db in try db.fetchAll("PRAGMA integrity_check") }
                problems = rows.compactMap { $0[0].string }.filter { $0 != "ok" }
            } catch let error as VaultError {
                if case .integrity(let failure) = error { failures.append(failure) } else { throw error }
            } catch {
                problems.append("\(error)")
            }
        }
        return VerificationReport(databasePages: pages, walFrames: frames, failures: failures, tornTail: tornTail, integrityProblems: problems)
    }

    /// Opens every unit of a file, one unit in memory at a time, and records
    /// the failures. Returns the number of units.
    static func authenticateUnits(ofFile path: String, layout: SealedFileLayout, sealer: UnitSealer, failures: inout [IntegrityFailure],
                                  progress: ((_ bytesDone: Int64) -> Void)? = nil) throws(VaultError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw VaultError.io(path: path, detail: "cannot open for reading")
        }
        defer { try? handle.close() }
        let fileSize = Int64(fileLength(path) ?? 0)
        let capacity = Int(SealedFileLayout.physicalBlockSize)
        let output = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer {
            Sodium.wipe(UnsafeMutableRawBufferPointer(start: output, count: capacity))
            output.deallocate()
        }
        var logical: Int64 = 0
        var units = 0
        let logicalSize = layout.logicalSize(physicalSize: fileSize)
        while logical < logicalSize {
            let unit = layout.unit(at: logical)
            guard unit.physicalStart < fileSize else { break }
            units += 1
            if unit.physicalEnd > fileSize {
                failures.append(IntegrityFailure(path: path, location: unit.location, reason: "the file ends inside this \(unit.kind.label): it was truncated"))
                break
            }
            let sealed: Data
            do {
                try handle.seek(toOffset: UInt64(unit.physicalStart))
                sealed = try handle.read(upToCount: unit.physicalLength) ?? Data()
            } catch {
                throw VaultError.io(path: path, detail: error.localizedDescription)
            }
            let opened = sealed.count == unit.physicalLength && sealed.withUnsafeBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return false }
                return sealer.open(base, count: unit.sealedLength, into: output, kind: unit.kind, index: unit.index)
            }
            if !opened {
                failures.append(IntegrityFailure(path: path, location: unit.location, reason: "\(unit.kind.label) failed authentication"))
            }
            if let progress, units % 256 == 0 { progress(unit.physicalEnd) }
            logical = unit.logicalEnd
        }
        progress?(fileSize)
        return units
    }

    // MARK: - Helpers

    /// Removes an empty -wal and its -shm that a read made, unless another process has the vault open.
    private static func removeEmptyLogFiles(of path: String) {
        guard let lock = try? VaultUseLock.acquire(vaultPath: path, mode: .exclusive) else { return }
        withExtendedLifetime(lock) {
            guard (fileLength(path + "-wal") ?? 0) == 0 else { return }
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
        }
    }

    /// Throws ``VaultError/inUse(path:detail:)`` when another connection or process has
    /// the vault open (what a rotation or rekey would meet): dry runs predict the real run.
    public static func ensureNotInUse(vaultAt url: URL) throws(VaultError) {
        let path = try existingVaultPath(url)
        guard FileManager.default.fileExists(atPath: VaultUseLock.lockPath(forVault: path)) else { return }
        guard let lock = try VaultUseLock.acquire(vaultPath: path, mode: .exclusive) else { return }
        withExtendedLifetime(lock) {}
    }

    /// Deletes a vault file and its companions (`-wal`, `-shm`, `-journal`,
    /// `.lock`, `.notify`) when no connection in this process and no other
    /// process has it open; returns whether anything was deleted.
    /// - Throws: ``VaultError/inUse(path:detail:)`` when it is open.
    @discardableResult
    public static func deleteFiles(ofVaultAt url: URL) throws(VaultError) -> Bool {
        try VaultVFS.register()
        let path = VaultVFS.fullPathname(url.standardizedFileURL.path)
        if VaultRegistry.keys(forDatabase: path) != nil {
            throw VaultError.inUse(path: path, detail: "it is open in this process: release every vault, object and collection of it first")
        }
        let companions = ["", "-wal", "-shm", "-journal", ".notify"]
        guard companions.contains(where: { FileManager.default.fileExists(atPath: path + $0) }) else { return false }
        // Held while deleting, so that no other process opens the vault meanwhile.
        let lock = try VaultUseLock.acquire(vaultPath: path, mode: .exclusive)
        var deleted = false
        for suffix in companions where FileManager.default.fileExists(atPath: path + suffix) {
            do {
                try FileManager.default.removeItem(atPath: path + suffix)
                deleted = true
            } catch {
                throw VaultError.io(path: path + suffix, detail: "cannot delete it: \(error.localizedDescription)")
            }
        }
        withExtendedLifetime(lock) {}
        try? FileManager.default.removeItem(atPath: VaultUseLock.lockPath(forVault: path))
        return deleted
    }

    static func existingVaultPath(_ url: URL) throws(VaultError) -> String {
        try VaultVFS.register()
        let path = VaultVFS.fullPathname(url.standardizedFileURL.path)
        guard FileManager.default.fileExists(atPath: path) else { throw VaultError.fileNotFound(path: path) }
        try VaultPathCheck.requireRegularFileOrAbsent(path)
        return path
    }

    static func refuseIfOpenInThisProcess(_ path: String) throws(VaultError) {
        if VaultRegistry.keys(forDatabase: path) != nil {
            throw VaultError.misuse("\(path) is open in this process; inspect or verify it from a process that does not have it open (reading the file directly would release SQLite's locks on it)")
        }
    }

    private static func fileLength(_ path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value
    }

    static func readPrefix(of path: String, count: Int) throws(VaultError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw VaultError.io(path: path, detail: "cannot open for reading")
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw VaultError.io(path: path, detail: error.localizedDescription)
        }
    }
}

/// Reports a rekey's progress from SQLite's progress handler, which runs on the copying
/// thread every few thousand virtual-machine steps: the new file's size against the old's
/// (the copy is compacted, so the last report is "done" whatever the sizes).
private final class RekeyProgress {
    private let temporary: String
    private let total: Int64
    private let report: (Int64, Int64) -> Void
    private var lastReported = Int64(-1)

    init(temporary: String, total: Int64, report: @escaping (Int64, Int64) -> Void) {
        self.temporary = temporary
        self.total = total
        self.report = report
    }

    func install(on db: Database) {
        sqlite3_progress_handler(db.handle, 20_000, { context in
            guard let context else { return 0 }
            Unmanaged<RekeyProgress>.fromOpaque(context).takeUnretainedValue().tick()
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    func remove(from db: Database) {
        sqlite3_progress_handler(db.handle, 0, nil, nil)
    }

    private func tick() {
        var status = stat()
        guard stat(temporary, &status) == 0 else { return }
        let written = min(Int64(status.st_size), total)
        guard written != lastReported else { return }
        lastReported = written
        report(written, total)
    }
}
