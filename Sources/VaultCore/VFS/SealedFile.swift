import CSQLite
import Foundation

/// The state behind one file SQLite opened through the vault VFS: the wrapped
/// (unix) file, its layout and its sealer.
///
/// Invariants (see `VaultVFS.swift` for the essay):
/// 1. Every read opens whole units, whatever sub-range SQLite asks for, and
///    never hands SQLite a byte that failed authentication.
/// 2. Every write seals into memory of the handle's own (a scratch buffer, or
///    the WAL's frame batch, see WALWriteBatch): SQLite's buffers are never
///    written to (SQLite's own `cksumvfs` does, and loses WAL commits).
/// 3. A page's reserved tail is zero in SQLite's memory: writes check it and
///    reads return it as zeros (WAL checksums cover the whole page, wal.c:822).
/// 4. Only bytes that exist on disk are opened: a unit absent on disk reads as
///    a short read; a unit present but cut short is an integrity failure.
///
/// One handle is used by one connection, hence one thread, at a time: no locks.
final class SealedFile {
    /// How this file is stored.
    enum Mode {
        /// Sealed units laid out by `layout`.
        case sealed(layout: SealedFileLayout, sealer: UnitSealer)
        /// Passed through untouched: super-journals, which hold file names only.
        case passthrough
    }

    let wrapped: UnsafeMutablePointer<sqlite3_file>
    let mode: Mode
    /// The path used in error messages.
    let path: String
    /// The database whose key this handle registered (main database files only).
    private let registeredDatabasePath: String?
    private let scratchSealed: UnsafeMutableRawPointer
    private let scratchPlain: UnsafeMutableRawPointer
    /// One unit's logical bytes, for partial reads and read-modify-write.
    private let scratchUnit: UnsafeMutableRawPointer
    private var knownPhysicalSize: Int64 = -1
    /// WAL frames sealed and not yet written (WAL handles only; see WALWriteBatch).
    var walBatch = WALWriteBatch()
    private static let scratchSize = SealedFileLayout.pageSize + SealedFileLayout.blockLengthPrefix

    init(wrapped: UnsafeMutablePointer<sqlite3_file>, mode: Mode, path: String, registeredDatabasePath: String?) {
        self.wrapped = wrapped
        self.mode = mode
        self.path = path
        self.registeredDatabasePath = registeredDatabasePath
        scratchSealed = .allocate(byteCount: Self.scratchSize, alignment: 16)
        scratchPlain = .allocate(byteCount: Self.scratchSize, alignment: 16)
        scratchUnit = .allocate(byteCount: Self.scratchSize, alignment: 16)
    }

    deinit {
        // The plaintext scratch held page contents: wipe before freeing.
        Sodium.wipe(UnsafeMutableRawBufferPointer(start: scratchPlain, count: Self.scratchSize))
        Sodium.wipe(UnsafeMutableRawBufferPointer(start: scratchUnit, count: Self.scratchSize))
        scratchSealed.deallocate()
        scratchPlain.deallocate()
        scratchUnit.deallocate()
        walBatch.deallocate()
        if let registeredDatabasePath { VaultRegistry.releaseDatabase(path: registeredDatabasePath) }
    }

    // MARK: - Physical I/O on the wrapped file

    private var io: sqlite3_io_methods { wrapped.pointee.pMethods.pointee }

    func physicalRead(_ buffer: UnsafeMutableRawPointer, _ amount: Int, _ offset: Int64) -> Int32 {
        if let injected = FaultInjection.failure(.read, path: path) { return injected }
        guard let xRead = io.xRead else { return SQLITE_IOERR_READ_CODE }
        return xRead(wrapped, buffer, Int32(amount), offset)
    }

    func physicalWrite(_ buffer: UnsafeRawPointer, _ amount: Int, _ offset: Int64) -> Int32 {
        if let injected = FaultInjection.failure(.write, path: path) { return injected }
        #if VAULTKIT_TEST_SEAMS
        if FaultInjection.isRecording(path) { recordUnsyncedWrite(amount, offset) }
        #endif
        guard let xWrite = io.xWrite else { return SQLITE_IOERR_WRITE_CODE }
        let status = xWrite(wrapped, buffer, Int32(amount), offset)
        if status == SQLITE_OK { knownPhysicalSize = max(knownPhysicalSize, offset + Int64(amount)) }
        return status
    }

    /// fsync of the wrapped file for writes VaultKit makes itself (the vault
    /// header, key slots), through the same fault-injection hook as SQLite's syncs.
    func physicalSync() -> Int32 {
        if let injected = FaultInjection.failure(.sync, path: path) { return injected }
        guard let xSync = io.xSync else { return SQLITE_IOERR_FSYNC_CODE }
        let status = xSync(wrapped, SQLITE_SYNC_FULL)
        if status == SQLITE_OK { FaultInjection.didSync(path) }
        return status
    }

    #if VAULTKIT_TEST_SEAMS
    /// Power-loss simulation (tests only): what this write is about to replace.
    private func recordUnsyncedWrite(_ amount: Int, _ offset: Int64) {
        guard let xRead = io.xRead, let xFileSize = io.xFileSize else { return }
        var size: sqlite3_int64 = 0
        _ = xFileSize(wrapped, &size)
        let present = max(0, min(Int64(amount), size - offset))
        var previous = [UInt8](repeating: 0, count: Int(present))
        if present > 0 { _ = previous.withUnsafeMutableBytes { xRead(wrapped, $0.baseAddress, Int32(present), offset) } }
        FaultInjection.recordWrite(.init(path: path, offset: offset, count: amount, previous: previous, previousSize: size))
    }
    #endif

    func physicalSize() -> (status: Int32, size: Int64) {
        if let injected = FaultInjection.failure(.fileSize, path: path) { return (injected, 0) }
        guard let xFileSize = io.xFileSize else { return (SQLITE_IOERR_FSTAT_CODE, 0) }
        var size: sqlite3_int64 = 0
        let status = xFileSize(wrapped, &size)
        if status == SQLITE_OK { knownPhysicalSize = size }
        return (status, size)
    }

    func physicalTruncate(_ size: Int64) -> Int32 {
        if let injected = FaultInjection.failure(.truncate, path: path) { return injected }
        guard let xTruncate = io.xTruncate else { return SQLITE_IOERR_TRUNCATE_CODE }
        let status = xTruncate(wrapped, size)
        if status == SQLITE_OK { knownPhysicalSize = size }
        return status
    }

    // MARK: - Failures

    /// While set, failures are returned but not recorded (the torn-tail check tries units that may be damaged).
    private var quiet = false

    private func fail(_ unit: UnitGeometry, _ reason: String) -> Int32 {
        if !quiet { VaultRegistry.recordFailure(.integrity(IntegrityFailure(path: path, location: unit.location, reason: reason))) }
        return SQLITE_IOERR_DATA_CODE
    }

    // MARK: - Units

    private enum UnitRead {
        case opened        // scratchPlain holds the unit's logical bytes
        case absent        // no byte of the unit exists on disk
        case failed(Int32) // error already recorded
    }

    /// Reads and opens `unit` into `destination` (its `logicalLength` bytes,
    /// zero tail included). For block units, returns the used length too.
    private func readUnit(_ unit: UnitGeometry, into destination: UnsafeMutableRawPointer, sealer: UnitSealer) -> (UnitRead, usedLength: Int) {
        let status = physicalRead(scratchSealed, unit.physicalLength, unit.physicalStart)
        if status == SQLITE_IOERR_SHORT_READ_CODE {
            let (sizeStatus, size) = physicalSize()
            guard sizeStatus == SQLITE_OK else { return (.failed(sizeStatus), 0) }
            if size <= unit.physicalStart { return (.absent, 0) }
            if isTornJournalTail(unit, sealer: sealer) { return (.absent, 0) }
            return (.failed(fail(unit, "the file ends inside this \(unit.kind.label) (\(size - unit.physicalStart) of \(unit.physicalLength) bytes present): it was truncated")), 0)
        }
        guard status == SQLITE_OK else { return (.failed(status), 0) }

        if unit.lengthPrefix == 0 {
            guard sealer.open(scratchSealed, count: unit.sealedLength, into: destination, kind: unit.kind, index: unit.index) else {
                return (.failed(fail(unit, "\(unit.kind.label) failed authentication (modified, moved from another position, or from another vault)")), 0)
            }
            if unit.zeroTail > 0 {
                (destination + unit.sealedLength).initializeMemory(as: UInt8.self, repeating: 0, count: unit.zeroTail)
            }
            return (.opened, unit.logicalLength)
        }
        // Block unit: plaintext is length(4) ‖ data(4052).
        guard sealer.open(scratchSealed, count: unit.sealedLength, into: scratchPlain, kind: unit.kind, index: unit.index) else {
            if isTornJournalTail(unit, sealer: sealer) { return (.absent, 0) }
            return (.failed(fail(unit, "\(unit.kind.label) failed authentication (modified, moved, or from another vault)")), 0)
        }
        let used = Int(scratchPlain.loadUnaligned(as: UInt32.self).littleEndian)
        guard used <= unit.logicalLength else {
            return (.failed(fail(unit, "\(unit.kind.label) declares an impossible length")), 0)
        }
        destination.copyMemory(from: scratchPlain + unit.lengthPrefix, byteCount: unit.logicalLength)
        return (.opened, used)
    }

    /// Seals `unit` from `plaintext` (its logical bytes) and writes it.
    func writeUnit(_ unit: UnitGeometry, from plaintext: UnsafeRawPointer, usedLength: Int, sealer: UnitSealer) -> Int32 {
        let rc = sealUnit(unit, from: plaintext, usedLength: usedLength, sealer: sealer, into: scratchSealed)
        guard rc == SQLITE_OK else { return rc }
        return physicalWrite(scratchSealed, unit.physicalLength, unit.physicalStart)
    }

    /// Seals `unit` from `plaintext` (its logical bytes) into `destination`
    /// (`unit.physicalLength` bytes, as they go on disk).
    func sealUnit(_ unit: UnitGeometry, from plaintext: UnsafeRawPointer, usedLength: Int, sealer: UnitSealer,
                  into destination: UnsafeMutableRawPointer) -> Int32 {
        if unit.zeroTail > 0 {
            // Invariant 3: a page whose reserved tail is not zero cannot be stored in place.
            let tail = UnsafeRawBufferPointer(start: plaintext + (unit.logicalLength - unit.zeroTail), count: unit.zeroTail)
            if tail.contains(where: { $0 != 0 }) {
                VaultRegistry.recordFailure(.misuse("SQLite wrote \(unit.location) of \(path) without 40 zero reserved bytes; vault files must be created by VaultKit (reserve 40, page size 4096)"))
                return SQLITE_IOERR_WRITE_CODE
            }
        }
        if unit.lengthPrefix == 0 {
            sealer.seal(plaintext, count: unit.sealedLength, into: destination, kind: unit.kind, index: unit.index)
        } else {
            scratchPlain.storeBytes(of: UInt32(usedLength).littleEndian, as: UInt32.self)
            (scratchPlain + unit.lengthPrefix).copyMemory(from: plaintext, byteCount: unit.logicalLength)
            sealer.seal(scratchPlain, count: unit.sealedLength, into: destination, kind: unit.kind, index: unit.index)
        }
        return SQLITE_OK
    }

    /// Seals empty units for any whole unit missing between the end of the
    /// file and `unit`, so that a later read of a gap authenticates (as zeros)
    /// instead of failing.
    private func fillGap(before unit: UnitGeometry, layout: SealedFileLayout, sealer: UnitSealer) -> Int32 {
        // The WAL is written in frame order, and its header pages have unwritten
        // slots by design: never fill there.
        if case .wal = layout { return SQLITE_OK }
        if knownPhysicalSize >= unit.physicalStart { return SQLITE_OK }
        let (status, size) = physicalSize()
        guard status == SQLITE_OK else { return status }
        if size >= unit.physicalStart { return SQLITE_OK }
        var logicalEnd = layout.logicalSize(physicalSize: size)
        // As large as the largest unit's logical bytes (a page), whatever the layout.
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: Self.scratchSize, alignment: 16)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: Self.scratchSize)
        while logicalEnd < unit.logicalStart {
            let missing = layout.unit(at: logicalEnd)
            let rc = writeUnit(missing, from: zeros, usedLength: 0, sealer: sealer)
            guard rc == SQLITE_OK else { return rc }
            logicalEnd = missing.logicalEnd
        }
        return SQLITE_OK
    }

    /// Whether a rollback-journal block that fails to open is the journal's
    /// torn tail: no later block opens. Power loss while the journal was being
    /// written (SQLite syncs it before it changes the database) leaves such a
    /// tail; SQLite's playback stops at the end of what it can read, so the block
    /// then reads as the end of the file. Damage followed by a valid block is an
    /// integrity failure. (The same rule as the WAL's, see WALTail.)
    private func isTornJournalTail(_ unit: UnitGeometry, sealer: UnitSealer) -> Bool {
        guard unit.kind == .journalBlock else { return false }
        let (status, size) = physicalSize()
        guard status == SQLITE_OK else { return false }
        let blocks = (size + SealedFileLayout.physicalBlockSize - 1) / SealedFileLayout.physicalBlockSize
        let probe = UnsafeMutableRawPointer.allocate(byteCount: Self.scratchSize, alignment: 16)
        defer {
            Sodium.wipe(UnsafeMutableRawBufferPointer(start: probe, count: Self.scratchSize))
            probe.deallocate()
        }
        var index = Int64(unit.index) + 1
        while index < blocks {
            let later = SealedFileLayout.blocks(.journalBlock).unit(at: index * Int64(SealedFileLayout.blockSize))
            if physicalRead(scratchSealed, later.physicalLength, later.physicalStart) == SQLITE_OK,
               sealer.open(scratchSealed, count: later.sealedLength, into: probe, kind: later.kind, index: later.index) {
                return false
            }
            index += 1
        }
        return true
    }

    // MARK: - xRead / xWrite / xTruncate / xFileSize

    func read(_ buffer: UnsafeMutableRawPointer, amount: Int, offset: Int64) -> Int32 {
        guard case .sealed(let layout, let sealer) = mode else { return physicalRead(buffer, amount, offset) }
        let flushed = flushWALBatch()
        guard flushed == SQLITE_OK else { return flushed }
        if case .wal = layout, WALTail.isRecoveryRead(amount: amount, offset: offset) {
            return readDuringRecovery(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
        }
        if case .database = layout, offset + Int64(amount) <= 100 {
            return readDatabaseHeader(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
        }
        return readUnits(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
    }

    /// A read of the first 100 bytes of page 1 alone: SQLite reads them straight
    /// from the database file when it opens (sqlite3PagerReadFileheader), before
    /// recovering the WAL or playing back a journal, only to learn the page
    /// size, the reserve and the vacuum mode — and reads page 1 itself later,
    /// through the WAL. Power loss during a checkpoint can tear page 1 in the
    /// database file while the WAL still holds it whole; then these bytes are
    /// served from what every vault has in common (nothing stored), and the real
    /// page 1 is authenticated when SQLite reads it — from the WAL, or from this
    /// file, failing there if it really is damaged.
    private func readDatabaseHeader(_ buffer: UnsafeMutableRawPointer, amount: Int, offset: Int64, layout: SealedFileLayout, sealer: UnitSealer) -> Int32 {
        quiet = true
        let status = readUnits(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
        quiet = false
        guard status == SQLITE_IOERR_DATA_CODE else { return status }
        let header = VaultFileHeader.sqliteHeaderStandIn(walMode: FileManager.default.fileExists(atPath: path + "-wal"))
        return header.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, offset >= 0 else { return status }
            buffer.copyMemory(from: base + Int(offset), byteCount: amount)
            return SQLITE_OK
        }
    }

    /// A read of the WAL header or of a whole frame, as SQLite's WAL recovery
    /// makes them: a unit that fails to open is read as zeros — which SQLite
    /// takes for the end of the log — when it belongs to the torn tail (no
    /// authenticated commit follows it), and is an integrity failure otherwise.
    private func readDuringRecovery(_ buffer: UnsafeMutableRawPointer, amount: Int, offset: Int64, layout: SealedFileLayout, sealer: UnitSealer) -> Int32 {
        quiet = true
        let status = readUnits(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
        quiet = false
        guard status == SQLITE_IOERR_DATA_CODE else { return status }
        let frame = offset < SealedFileLayout.walHeaderSize ? 0 : (offset - SealedFileLayout.walHeaderSize) / SealedFileLayout.walFrameSize + 1
        if isTornTail(fromFrame: frame, layout: layout, sealer: sealer) {
            buffer.initializeMemory(as: UInt8.self, repeating: 0, count: amount)
            return SQLITE_OK
        }
        // A later commit authenticates: this damage is not a torn write. Read again, reporting it.
        return readUnits(buffer, amount: amount, offset: offset, layout: layout, sealer: sealer)
    }

    /// Whether damage at frame `frame` (0: the header) is a torn tail (see WALTail).
    private func isTornTail(fromFrame frame: Int64, layout: SealedFileLayout, sealer: UnitSealer) -> Bool {
        quiet = true
        defer { quiet = false }
        let header = UnsafeMutableRawPointer.allocate(byteCount: SealedFileLayout.pageSize, alignment: 16)
        defer { header.deallocate() }
        var salts: UInt64?
        if frame > 0, readUnits(header, amount: Int(SealedFileLayout.walHeaderSize), offset: 0, layout: layout, sealer: sealer) == SQLITE_OK {
            salts = header.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        }
        let (status, size) = physicalSize()
        guard status == SQLITE_OK else { return false }
        return WALTail.isTornTail(
            damaged: frame, frameCount: SealedFileLayout.walFrameCount(physicalSize: size), salts: salts,
            frameHeader: { number in
                readUnits(header, amount: SealedFileLayout.walFrameHeaderSize, offset: SealedFileLayout.walFrameOffset(number), layout: layout, sealer: sealer) == SQLITE_OK
                    ? UnsafeRawPointer(header) : nil
            },
            pageOpens: { number in
                readUnits(scratchUnit, amount: SealedFileLayout.pageSize, offset: SealedFileLayout.walFrameOffset(number) + Int64(SealedFileLayout.walFrameHeaderSize),
                          layout: layout, sealer: sealer) == SQLITE_OK
            })
    }

    private func readUnits(_ buffer: UnsafeMutableRawPointer, amount: Int, offset: Int64, layout: SealedFileLayout, sealer: UnitSealer) -> Int32 {
        var result = SQLITE_OK
        var blockFileSize: Int64?
        for span in layout.spans(offset: offset, amount: amount) {
            let (unit, within, count, done, position) = (span.unit, span.within, span.count, span.done, span.position)
            let destination = buffer + done
            let whole = within == 0 && count == unit.logicalLength && unit.lengthPrefix == 0
            // Fast path: a whole page opens straight into SQLite's buffer.
            let (outcome, used) = readUnit(unit, into: whole ? destination : scratchUnit, sealer: sealer)
            switch outcome {
            case .failed(let status):
                destination.initializeMemory(as: UInt8.self, repeating: 0, count: amount - done)
                return status
            case .absent:
                destination.initializeMemory(as: UInt8.self, repeating: 0, count: count)
                result = SQLITE_IOERR_SHORT_READ_CODE
            case .opened:
                if !whole {
                    destination.copyMemory(from: scratchUnit + within, byteCount: count)
                }
                if unit.lengthPrefix > 0 && within + count > used {
                    // Bytes past the block's used length: zeros, and past the end of the file.
                    let validCount = max(0, used - within)
                    (destination + validCount).initializeMemory(as: UInt8.self, repeating: 0, count: count - validCount)
                    if blockFileSize == nil { blockFileSize = logicalBlockFileSize(layout: layout, sealer: sealer).size }
                    if position + Int64(count) > (blockFileSize ?? 0) { result = SQLITE_IOERR_SHORT_READ_CODE }
                }
            }
        }
        return result
    }

    func write(_ buffer: UnsafeRawPointer, amount: Int, offset: Int64) -> Int32 {
        guard case .sealed(let layout, let sealer) = mode else { return physicalWrite(buffer, amount, offset) }
        if case .wal = layout {
            let unit = layout.unit(at: offset)
            if offset == unit.logicalStart, amount == unit.logicalLength, unit.kind == .walFrameHeader || unit.kind == .walPage {
                return writeWALFrameUnit(unit, from: buffer, sealer: sealer)
            }
            let flushed = flushWALBatch()
            guard flushed == SQLITE_OK else { return flushed }
        }
        for span in layout.spans(offset: offset, amount: amount) {
            let (unit, within, count) = (span.unit, span.within, span.count)
            let source = buffer + span.done
            var rc = fillGap(before: unit, layout: layout, sealer: sealer)
            guard rc == SQLITE_OK else { return rc }
            if within == 0 && count == unit.logicalLength {
                rc = writeUnit(unit, from: source, usedLength: count, sealer: sealer)
            } else {
                // Read-modify-write of a partly covered unit.
                let body = scratchUnit
                let (outcome, used) = readUnit(unit, into: body, sealer: sealer)
                var usedLength = used
                switch outcome {
                case .failed(let status): return status
                case .absent:
                    body.initializeMemory(as: UInt8.self, repeating: 0, count: unit.logicalLength)
                    usedLength = 0
                case .opened: break
                }
                (body + within).copyMemory(from: source, byteCount: count)
                rc = writeUnit(unit, from: body, usedLength: max(usedLength, within + count), sealer: sealer)
            }
            guard rc == SQLITE_OK else { return rc }
        }
        return SQLITE_OK
    }

    func truncate(_ logicalSize: Int64) -> Int32 {
        guard case .sealed(let layout, let sealer) = mode else { return physicalTruncate(logicalSize) }
        let flushed = flushWALBatch()
        guard flushed == SQLITE_OK else { return flushed }
        let physical = layout.physicalSize(logicalSize: logicalSize)
        if case .blocks = layout, logicalSize % Int64(SealedFileLayout.blockSize) != 0 {
            // The last kept block records the new used length.
            let unit = layout.unit(at: logicalSize - 1)
            let body = scratchUnit
            let (outcome, used) = readUnit(unit, into: body, sealer: sealer)
            switch outcome {
            case .failed(let status): return status
            case .absent: break
            case .opened:
                let newUsed = min(used, Int(logicalSize - unit.logicalStart))
                body.advanced(by: newUsed).initializeMemory(as: UInt8.self, repeating: 0, count: unit.logicalLength - newUsed)
                let rc = writeUnit(unit, from: body, usedLength: newUsed, sealer: sealer)
                guard rc == SQLITE_OK else { return rc }
            }
        }
        return physicalTruncate(physical)
    }

    func fileSize() -> (status: Int32, size: Int64) {
        guard case .sealed(let layout, let sealer) = mode else { return physicalSize() }
        let flushed = flushWALBatch()
        guard flushed == SQLITE_OK else { return (flushed, 0) }
        if case .blocks = layout { return logicalBlockFileSize(layout: layout, sealer: sealer) }
        let (status, size) = physicalSize()
        guard status == SQLITE_OK else { return (status, 0) }
        return (SQLITE_OK, layout.logicalSize(physicalSize: size))
    }

    /// A block file's logical size: whole blocks before the last, plus the last block's used length.
    private func logicalBlockFileSize(layout: SealedFileLayout, sealer: UnitSealer) -> (status: Int32, size: Int64) {
        let (status, physical) = physicalSize()
        guard status == SQLITE_OK else { return (status, 0) }
        guard physical > 0 else { return (SQLITE_OK, 0) }
        let units = physical / SealedFileLayout.physicalBlockSize
        if physical % SealedFileLayout.physicalBlockSize != 0 || units == 0 {
            // A cut-short last block: count it whole so that reading it reports the truncation.
            return (SQLITE_OK, layout.logicalSize(physicalSize: physical))
        }
        let last = layout.unit(at: (units - 1) * Int64(SealedFileLayout.blockSize))
        let (outcome, used) = readUnit(last, into: scratchUnit, sealer: sealer)
        switch outcome {
        case .failed(let rc): return (rc, 0)
        case .absent: return (SQLITE_OK, last.logicalStart)
        case .opened: return (SQLITE_OK, last.logicalStart + Int64(used))
        }
    }
}

// Extended result codes as plain constants (see CSQLite/shim.h).
let SQLITE_IOERR_READ_CODE = VAULTKIT_SQLITE_IOERR_READ
let SQLITE_IOERR_SHORT_READ_CODE = VAULTKIT_SQLITE_IOERR_SHORT_READ
let SQLITE_IOERR_WRITE_CODE = VAULTKIT_SQLITE_IOERR_WRITE
let SQLITE_IOERR_TRUNCATE_CODE = VAULTKIT_SQLITE_IOERR_TRUNCATE
let SQLITE_IOERR_FSTAT_CODE = VAULTKIT_SQLITE_IOERR_FSTAT
let SQLITE_IOERR_FSYNC_CODE = VAULTKIT_SQLITE_IOERR_FSYNC
let SQLITE_IOERR_DATA_CODE = VAULTKIT_SQLITE_IOERR_DATA
