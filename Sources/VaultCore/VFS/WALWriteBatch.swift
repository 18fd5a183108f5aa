import CSQLite

// MARK: - WAL frames written a group at a time
//
// SQLite appends a transaction to the write-ahead log one frame at a time,
// and each frame in two calls: its 24-byte header, then its page. Sealed in
// place (SealedFileLayout: 63 frame headers share one page, then the 63
// frames' pages follow), that was two `pwrite`s per frame, each to a
// different place: two system calls per changed page, which took more of a
// large commit than sealing the pages did (Benchmarks/README.md, "WAL write batch").
//
// A WAL handle therefore keeps the frames it seals in a *batch* (this file)
// and writes them with few calls: the run of sealed frame headers (one page
// at most) and, after it, the run of pages (31 pages a call, the most the
// unix VFS writes at once). Headers go first, as SQLite
// writes them: a frame counts as present when its page is on disk
// (SealedFileLayout.logicalSize), so a crash between the two calls leaves
// headers without pages — frames that do not exist, as before.
//
// WHEN THE BATCH IS WRITTEN. Nothing may read or publish a frame that is
// still in memory:
// - the page of a *commit frame* (a header whose database size is not zero)
//   writes the batch before the `xWrite` returns, and that call returns the
//   write's status: SQLite publishes a commit in the wal-index only after its
//   last frame is written (and, at synchronous = FULL, synced), so every
//   published frame is on disk, as other connections and processes expect;
// - the last slot of a 63-frame group writes it (a batch never spans groups,
//   so each of its two runs is contiguous on disk);
// - every other call on the handle writes it first: a read (the writer
//   reading back a spilled page, a checkpoint, recovery), a sync, a size
//   query, a truncation, a file control, a close, and a write that does not
//   continue the batch (SQLite rewriting the header of an earlier frame of
//   the transaction, the WAL header of a restarted log).
// A frame SQLite never publishes (a spill of a transaction that then rolls
// back) is written like any other, as it was; SQLite overwrites it later.
//
// FAILURES. A failed batch write is returned by the call that wrote it —
// the commit frame's `xWrite`, a sync, a read — so SQLite sees the I/O error
// where it would have seen it before and rolls the transaction back; the
// batch is dropped either way (those frames are not committed).
//
// MEMORY. A batch holds sealed bytes only (ciphertext, nothing to wipe): one
// page of frame headers and up to 63 sealed pages, 260 KiB, allocated the first time
// a handle writes a frame (reader connections never do) and kept until it
// closes.

/// Sealed WAL frames not yet written (see the essay above): the frames of one
/// group, from `firstSlot`, headers and pages in the layout's on-disk form.
struct WALWriteBatch {
    /// Sealed frame headers, each at its slot's place in the group's header page.
    private(set) var headers: UnsafeMutableRawPointer?
    /// Sealed pages, each at `slot × 4096`.
    private(set) var pages: UnsafeMutableRawPointer?
    /// The group the batched frames belong to (0-based).
    private(set) var group: Int64 = 0
    /// The slot of the first batched frame in its group.
    private(set) var firstSlot = 0
    /// Frame headers batched (slots `firstSlot ..< firstSlot + headerCount`).
    private(set) var headerCount = 0
    /// Pages batched (the same slots; one fewer than the headers while a frame is half written).
    private(set) var pageCount = 0
    /// The frame whose header marks a commit, while it is batched.
    private(set) var commitFrame: UInt64?

    static let slots = Int(SealedFileLayout.walFramesPerGroup)
    static let headerStride = SealedFileLayout.walPhysicalFrameHeaderSize
    static let pageStride = SealedFileLayout.pageSize
    /// The most pages one write of the wrapped file may carry (below 0x1ffff bytes).
    static let pagesPerWrite = 0x1ffff / SealedFileLayout.pageSize

    var isEmpty: Bool { headerCount == 0 }

    /// Where the next frame header goes, if `slot` of `group` continues the batch.
    mutating func headerDestination(group: Int64, slot: Int) -> UnsafeMutableRawPointer? {
        if headerCount == 0 {
            allocateIfNeeded()
            self.group = group
            firstSlot = slot
        } else if group != self.group || slot != firstSlot + headerCount || pageCount != headerCount {
            return nil
        }
        return headers.map { $0 + slot * Self.headerStride }
    }

    /// Where the page of `slot` of `group` goes, if it is the page of the last batched header.
    func pageDestination(group: Int64, slot: Int) -> UnsafeMutableRawPointer? {
        guard headerCount > 0, group == self.group, slot == firstSlot + pageCount, pageCount == headerCount - 1 else { return nil }
        return pages.map { $0 + slot * Self.pageStride }
    }

    /// Records a sealed header (`isCommit`: the frame ends a transaction).
    mutating func didAddHeader(frame: UInt64, isCommit: Bool) {
        headerCount += 1
        if isCommit { commitFrame = frame }
    }

    /// Records a sealed page; true when the batch must be written now (a
    /// commit frame is complete, or the group's last slot is filled).
    mutating func didAddPage(frame: UInt64) -> Bool {
        pageCount += 1
        return commitFrame == frame || firstSlot + pageCount == Self.slots
    }

    /// Empties the batch (its memory is kept for the next one).
    mutating func reset() {
        headerCount = 0
        pageCount = 0
        commitFrame = nil
    }

    private mutating func allocateIfNeeded() {
        if headers == nil { headers = .allocate(byteCount: SealedFileLayout.pageSize, alignment: 16) }
        if pages == nil { pages = .allocate(byteCount: Self.slots * Self.pageStride, alignment: 16) }
    }

    /// Frees the memory (the handle is closing).
    mutating func deallocate() {
        headers?.deallocate()
        pages?.deallocate()
        headers = nil
        pages = nil
        reset()
    }
}

extension SealedFile {
    /// Seals a whole WAL frame header or page into the batch, writing the
    /// batch when it must be (see the essay above); a unit that does not
    /// continue the batch writes the batch first and then goes on its own.
    func writeWALFrameUnit(_ unit: UnitGeometry, from plaintext: UnsafeRawPointer, sealer: UnitSealer) -> Int32 {
        let frame = Int64(unit.index) - 1
        let group = frame / SealedFileLayout.walFramesPerGroup
        let slot = Int(frame % SealedFileLayout.walFramesPerGroup)
        if unit.kind == .walFrameHeader {
            var destination = walBatch.headerDestination(group: group, slot: slot)
            if destination == nil {
                let rc = flushWALBatch()
                guard rc == SQLITE_OK else { return rc }
                destination = walBatch.headerDestination(group: group, slot: slot)
            }
            guard let destination else { return writeUnit(unit, from: plaintext, usedLength: unit.logicalLength, sealer: sealer) }
            let rc = sealUnit(unit, from: plaintext, usedLength: unit.logicalLength, sealer: sealer, into: destination)
            guard rc == SQLITE_OK else { return rc }
            // Bytes 4–7, big-endian: the database size in pages after a commit, zero otherwise.
            walBatch.didAddHeader(frame: unit.index, isCommit: plaintext.loadUnaligned(fromByteOffset: 4, as: UInt32.self) != 0)
            return SQLITE_OK
        }
        guard let destination = walBatch.pageDestination(group: group, slot: slot) else {
            let rc = flushWALBatch()
            guard rc == SQLITE_OK else { return rc }
            return writeUnit(unit, from: plaintext, usedLength: unit.logicalLength, sealer: sealer)
        }
        let rc = sealUnit(unit, from: plaintext, usedLength: unit.logicalLength, sealer: sealer, into: destination)
        guard rc == SQLITE_OK else { return rc }
        return walBatch.didAddPage(frame: unit.index) ? flushWALBatch() : SQLITE_OK
    }

    /// Writes the batched frames, headers first (see the essay above), and
    /// empties the batch whatever the outcome.
    func flushWALBatch() -> Int32 {
        guard !walBatch.isEmpty, let headers = walBatch.headers, let pages = walBatch.pages else { return SQLITE_OK }
        let batch = walBatch
        walBatch.reset()
        let groupStart = SealedFileLayout.walFirstGroup + batch.group * SealedFileLayout.walGroupSize
        let headerOffset = batch.firstSlot * WALWriteBatch.headerStride
        let rc = physicalWrite(headers + headerOffset, batch.headerCount * WALWriteBatch.headerStride, groupStart + Int64(headerOffset))
        guard rc == SQLITE_OK, batch.pageCount > 0 else { return rc }
        // SQLite's unix VFS writes at most 0x1ffff bytes a call (seekAndWrite masks
        // the count, and reports a longer write as a full disk): 31 pages a call.
        var slot = batch.firstSlot
        let end = batch.firstSlot + batch.pageCount
        while slot < end {
            let count = min(end - slot, WALWriteBatch.pagesPerWrite)
            let offset = slot * WALWriteBatch.pageStride
            let rc = physicalWrite(pages + offset, count * WALWriteBatch.pageStride, groupStart + Int64(WALWriteBatch.pageStride + offset))
            guard rc == SQLITE_OK else { return rc }
            slot += count
        }
        return SQLITE_OK
    }
}
