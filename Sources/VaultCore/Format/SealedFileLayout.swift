/// Where each sealed unit of a file lives, logically (the offsets SQLite
/// uses) and physically (the bytes on disk).
///
/// Every unit lies within one 4096-byte page of the file. Linux checks for a
/// fatal signal between pages inside one `write()`, so a unit that straddled a
/// page boundary could be torn by a SIGKILL and then fail authentication like a
/// tampered one; a unit inside one page is written whole or not at all.
///
/// ```
/// database:  [header block 4096][page 1: 4056 ct ‖ 24 nonce ‖ 16 tag][page 2]…
///            logical L  →  physical L + 4096        (pages stay 4096-aligned)
///
/// WAL:       [WAL header: 32 ct ‖ 40, in page 0]
///            then groups of 63 frames, each group 64 pages:
///            [page: 63 frame headers, 24 ct ‖ 40 each][63 page units, 4096 each]
///            frame i (1-based): g = (i-1) / 63, j = (i-1) % 63,
///              header at 4096 + g·64·4096 + j·64, page at 4096 + g·64·4096 + 4096 + j·4096
///
/// blocks:    [block 0: (len 4 ‖ data 4052) ct ‖ 40][block 1]…     (journals, temp files)
///            logical 4052·k + r  →  physical 4096·k, opened whole
/// ```
///
/// Pages (database and WAL) are sealed *in place*: the last 40 bytes of every
/// page are SQLite's reserved bytes, always zero in SQLite's memory, and hold
/// the nonce and tag on disk. Smaller units (WAL header, frame headers) and
/// blocks grow by 40 bytes. Block units carry their used length so that a
/// journal's exact logical size survives a crash.
enum SealedFileLayout: Sendable {
    case database
    case wal
    case blocks(UnitKind)

    static let pageSize = VaultFileHeader.pageSize
    static let headerBlockSize = Int64(VaultFileHeader.blockSize)
    static let walHeaderSize: Int64 = 32
    static let walFrameHeaderSize = 24
    static let walFrameSize = Int64(walFrameHeaderSize + pageSize)                        // 4120
    static let walPhysicalHeaderSize = walHeaderSize + Int64(UnitSealer.overhead)          // 72, in page 0
    static let walPhysicalFrameHeaderSize = walFrameHeaderSize + UnitSealer.overhead       // 64
    static let walFramesPerGroup: Int64 = 63                                              // 63 × 64 B headers fit one page
    static let walGroupSize = (walFramesPerGroup + 1) * Int64(pageSize)                   // 64 pages
    static let walFirstGroup = Int64(pageSize)                                            // after page 0
    static let blockLengthPrefix = 4
    static let physicalBlockSize = Int64(pageSize)                                         // one page per block
    static let blockSize = pageSize - blockLengthPrefix - UnitSealer.overhead              // 4052

    /// The unit that contains logical byte `offset`.
    func unit(at offset: Int64) -> UnitGeometry {
        switch self {
        case .database:
            let k = offset / Int64(Self.pageSize)
            return UnitGeometry(
                kind: .databasePage, index: UInt64(k + 1),
                logicalStart: k * Int64(Self.pageSize), logicalLength: Self.pageSize,
                physicalStart: Self.headerBlockSize + k * Int64(Self.pageSize),
                sealedLength: Self.pageSize - UnitSealer.overhead, lengthPrefix: 0)
        case .wal:
            if offset < Self.walHeaderSize {
                return UnitGeometry(
                    kind: .walHeader, index: 0, logicalStart: 0, logicalLength: Int(Self.walHeaderSize),
                    physicalStart: 0, sealedLength: Int(Self.walHeaderSize), lengthPrefix: 0)
            }
            let frame = (offset - Self.walHeaderSize) / Self.walFrameSize
            let within = (offset - Self.walHeaderSize) % Self.walFrameSize
            let logicalBase = Self.walHeaderSize + frame * Self.walFrameSize
            let groupStart = Self.walFirstGroup + (frame / Self.walFramesPerGroup) * Self.walGroupSize
            let slot = frame % Self.walFramesPerGroup
            if within < Int64(Self.walFrameHeaderSize) {
                return UnitGeometry(
                    kind: .walFrameHeader, index: UInt64(frame + 1),
                    logicalStart: logicalBase, logicalLength: Self.walFrameHeaderSize,
                    physicalStart: groupStart + slot * Int64(Self.walPhysicalFrameHeaderSize),
                    sealedLength: Self.walFrameHeaderSize, lengthPrefix: 0)
            }
            return UnitGeometry(
                kind: .walPage, index: UInt64(frame + 1),
                logicalStart: logicalBase + Int64(Self.walFrameHeaderSize), logicalLength: Self.pageSize,
                physicalStart: groupStart + Int64(Self.pageSize) * (1 + slot),
                sealedLength: Self.pageSize - UnitSealer.overhead, lengthPrefix: 0)
        case .blocks(let kind):
            let k = offset / Int64(Self.blockSize)
            return UnitGeometry(
                kind: kind, index: UInt64(k),
                logicalStart: k * Int64(Self.blockSize), logicalLength: Self.blockSize,
                physicalStart: k * Self.physicalBlockSize,
                sealedLength: Self.blockLengthPrefix + Self.blockSize, lengthPrefix: Self.blockLengthPrefix)
        }
    }

    /// The logical size SQLite sees for a file of `physicalSize` bytes.
    ///
    /// A unit cut short on disk still counts whole, so that SQLite reads it and
    /// the read reports the truncation instead of the file silently shrinking.
    /// (Block files need their last unit's length: ``SealedFile`` handles them.)
    func logicalSize(physicalSize: Int64) -> Int64 {
        switch self {
        case .database:
            guard physicalSize > Self.headerBlockSize else { return 0 }
            let body = physicalSize - Self.headerBlockSize
            let pages = (body + Int64(Self.pageSize) - 1) / Int64(Self.pageSize)
            return pages * Int64(Self.pageSize)
        case .wal:
            guard physicalSize > 0 else { return 0 }
            guard physicalSize > Self.walFirstGroup else { return Self.walHeaderSize }
            // A frame exists when its page unit does (SQLite writes the header first);
            // a page unit cut short still counts, so that reading it reports the truncation.
            let body = physicalSize - Self.walFirstGroup
            let groups = body / Self.walGroupSize
            let within = body % Self.walGroupSize
            let pagesInGroup = within <= Int64(Self.pageSize) ? 0 : (within - Int64(Self.pageSize) + Int64(Self.pageSize) - 1) / Int64(Self.pageSize)
            return Self.walHeaderSize + (groups * Self.walFramesPerGroup + pagesInGroup) * Self.walFrameSize
        case .blocks:
            let units = (physicalSize + Self.physicalBlockSize - 1) / Self.physicalBlockSize
            return units * Int64(Self.blockSize)
        }
    }

    /// Where WAL frame `number` (1-based) starts, logically: its header, then its page.
    static func walFrameOffset(_ number: Int64) -> Int64 { walHeaderSize + (number - 1) * walFrameSize }

    /// How many frames a WAL of `physicalSize` bytes holds (a frame cut short counts).
    static func walFrameCount(physicalSize: Int64) -> Int64 {
        max(0, (wal.logicalSize(physicalSize: physicalSize) - walHeaderSize) / walFrameSize)
    }

    /// The physical size that keeps every unit holding a byte below `logicalSize`.
    func physicalSize(logicalSize: Int64) -> Int64 {
        guard logicalSize > 0 else {
            if case .database = self { return Self.headerBlockSize }   // the header block always stays
            return 0
        }
        let last = unit(at: logicalSize - 1)
        return last.physicalStart + Int64(last.physicalLength)
    }
}

/// One sealed unit's position and shape.
struct UnitGeometry: Sendable {
    var kind: UnitKind
    /// Bound into the associated data: page number, frame number, or block number.
    var index: UInt64
    var logicalStart: Int64
    /// Bytes of the unit SQLite addresses.
    var logicalLength: Int
    var physicalStart: Int64
    /// Plaintext bytes sealed (the length prefix included).
    var sealedLength: Int
    /// 4 for block units (their used length comes first), else 0.
    var lengthPrefix: Int

    var physicalLength: Int { sealedLength + UnitSealer.overhead }
    /// Logical bytes kept out of the ciphertext because they are always zero
    /// (40 for pages: SQLite's reserved bytes, which hold nonce and tag on disk).
    var zeroTail: Int { logicalLength - (sealedLength - lengthPrefix) }
    var logicalEnd: Int64 { logicalStart + Int64(logicalLength) }
    var physicalEnd: Int64 { physicalStart + Int64(physicalLength) }

    /// The failure location this unit reports.
    var location: IntegrityFailure.Location {
        switch kind {
        case .databasePage: .databasePage(index)
        case .walHeader: .walHeader
        case .walFrameHeader, .walPage: .walFrame(index)
        case .journalBlock: .journalBlock(index)
        case .temporaryBlock: .temporaryBlock(index)
        }
    }
}

/// The part of an I/O request that falls in one unit.
struct UnitSpan {
    /// The unit.
    let unit: UnitGeometry
    /// Where in the unit's plaintext the part starts.
    let within: Int
    /// How many bytes of the request are in this unit.
    let count: Int
    /// How far into the request the part starts.
    let done: Int
    /// The part's offset in the file's plaintext.
    let position: Int64
}

extension SealedFileLayout {
    /// The units a request of `amount` bytes at `offset` touches, first to last, each with
    /// its part of the request: the one walk every read and write of a sealed file makes.
    func spans(offset: Int64, amount: Int) -> UnitSpans { UnitSpans(layout: self, offset: offset, amount: amount) }
}

/// The units a request touches (see ``SealedFileLayout/spans(offset:amount:)``).
struct UnitSpans: Sequence, IteratorProtocol {
    let layout: SealedFileLayout
    let offset: Int64
    let amount: Int
    private var done = 0

    init(layout: SealedFileLayout, offset: Int64, amount: Int) {
        self.layout = layout
        self.offset = offset
        self.amount = amount
    }

    mutating func next() -> UnitSpan? {
        guard done < amount else { return nil }
        let position = offset + Int64(done)
        let unit = layout.unit(at: position)
        let within = Int(position - unit.logicalStart)
        let count = Swift.min(amount - done, unit.logicalLength - within)
        defer { done += count }
        return UnitSpan(unit: unit, within: within, count: count, done: done, position: position)
    }
}
