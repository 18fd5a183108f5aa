import Foundation

/// Opens a WAL's units straight from the file (no SQLite), for `vault verify`'s
/// torn-tail rule (see WALTail).
struct WALFileReader {
    private let data: Data
    private let sealer: UnitSealer
    private let layout = SealedFileLayout.wal

    /// `nil` when the file cannot be read (the caller then reports failures as they are).
    init?(path: String, sealer: UnitSealer) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.data = data
        self.sealer = sealer
    }

    /// Whether a WAL unit failure lies in the log's torn tail.
    func isTornTail(_ failure: IntegrityFailure) -> Bool {
        let damaged: Int64
        switch failure.location {
        case .walHeader: damaged = 0
        case .walFrame(let frame): damaged = Int64(frame)
        default: return false
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: SealedFileLayout.pageSize, alignment: 16)
        defer {
            Sodium.wipe(UnsafeMutableRawBufferPointer(start: buffer, count: SealedFileLayout.pageSize))
            buffer.deallocate()
        }
        var salts: UInt64?
        if damaged > 0, open(at: 0, into: buffer) { salts = buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self) }
        func frameStart(_ number: Int64) -> Int64 { SealedFileLayout.walHeaderSize + (number - 1) * SealedFileLayout.walFrameSize }
        let frameCount = (layout.logicalSize(physicalSize: Int64(data.count)) - SealedFileLayout.walHeaderSize) / SealedFileLayout.walFrameSize
        return WALTail.isTornTail(
            damaged: damaged, frameCount: frameCount, salts: salts,
            frameHeader: { number in open(at: frameStart(number), into: buffer) ? UnsafeRawPointer(buffer) : nil },
            pageOpens: { number in open(at: frameStart(number) + Int64(SealedFileLayout.walFrameHeaderSize), into: buffer) })
    }

    /// Opens the unit at logical `offset` into `output`.
    private func open(at offset: Int64, into output: UnsafeMutableRawPointer) -> Bool {
        let unit = layout.unit(at: offset)
        guard unit.physicalEnd <= Int64(data.count) else { return false }
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            return sealer.open(base + Int(unit.physicalStart), count: unit.sealedLength, into: output, kind: unit.kind, index: unit.index)
        }
    }
}
