/// Where each sealed unit of a file lives, logically (the offsets SQLite
/// uses) and physically (the bytes on disk).
///
/// ```
/// database:  [header block 4096][page 1: 4056 ct ‖ 24 nonce ‖ 16 tag][page 2]…
///            logical L  →  physical L + 4096        (pages stay 4096-aligned)
///
/// WAL:       [WAL header: 32 ct ‖ 40][frame 1 header: 24 ct ‖ 40][frame 1 page: 4096]…
///            logical  32 + (i-1)·4120 + r  →  physical  72 + (i-1)·4160 + r'
///
/// blocks:    [block 0: (len 4 ‖ data 4096) ct ‖ 40][block 1]…      (journals, temp files)
///            logical 4096·k + r  →  physical 4140·k, opened whole
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
    static let walPhysicalHeaderSize = walHeaderSize + Int64(UnitSealer.overhead)          // 72
    static let walPhysicalFrameHeaderSize = walFrameHeaderSize + UnitSealer.overhead       // 64
    static let walPhysicalFrameSize = Int64(walPhysicalFrameHeaderSize + pageSize)         // 4160
    static let blockSize = 4096
    static let blockLengthPrefix = 4
    static let physicalBlockSize = Int64(blockLengthPrefix + blockSize + UnitSealer.overhead)  // 4140

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
            let physicalBase = Self.walPhysicalHeaderSize + frame * Self.walPhysicalFrameSize
            if within < Int64(Self.walFrameHeaderSize) {
                return UnitGeometry(
                    kind: .walFrameHeader, index: UInt64(frame + 1),
                    logicalStart: logicalBase, logicalLength: Self.walFrameHeaderSize,
                    physicalStart: physicalBase, sealedLength: Self.walFrameHeaderSize, lengthPrefix: 0)
            }
            return UnitGeometry(
                kind: .walPage, index: UInt64(frame + 1),
                logicalStart: logicalBase + Int64(Self.walFrameHeaderSize), logicalLength: Self.pageSize,
                physicalStart: physicalBase + Int64(Self.walPhysicalFrameHeaderSize),
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
            guard physicalSize > Self.walPhysicalHeaderSize else { return Self.walHeaderSize }
            let body = physicalSize - Self.walPhysicalHeaderSize
            let frames = body / Self.walPhysicalFrameSize
            let within = body % Self.walPhysicalFrameSize
            let base = Self.walHeaderSize + frames * Self.walFrameSize
            if within == 0 { return base }
            if within <= Int64(Self.walPhysicalFrameHeaderSize) { return base + Int64(Self.walFrameHeaderSize) }
            return base + Self.walFrameSize
        case .blocks:
            let units = (physicalSize + Self.physicalBlockSize - 1) / Self.physicalBlockSize
            return units * Int64(Self.blockSize)
        }
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
