import Foundation

/// Opens a WAL's units straight from the file (no SQLite), for `vault verify`'s
/// torn-tail rule (see WALTail).
struct WALFileReader {
    private let data: Data
    private let sealer: UnitSealer
    private let path: String
    private let layout = SealedFileLayout.wal

    /// `nil` when the file cannot be read (the caller then reports failures as they are).
    init?(path: String, sealer: UnitSealer) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.data = data
        self.sealer = sealer
        self.path = path
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
        return WALTail.isTornTail(
            damaged: damaged, frameCount: SealedFileLayout.walFrameCount(physicalSize: Int64(data.count)), salts: salts,
            frameHeader: { number in open(at: SealedFileLayout.walFrameOffset(number), into: buffer) ? UnsafeRawPointer(buffer) : nil },
            pageOpens: { number in open(at: SealedFileLayout.walFrameOffset(number) + Int64(SealedFileLayout.walFrameHeaderSize), into: buffer) })
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

    /// The first unit of the current log that fails to open, and where to cut:
    /// after the last commit frame before it. A log whose header fails keeps nothing.
    func scanForDamage() -> (firstDamage: IntegrityFailure?, frameCount: Int64, keepFrames: Int64, commitsAfter: Int) {
        let frameCount = SealedFileLayout.walFrameCount(physicalSize: Int64(data.count))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: SealedFileLayout.pageSize, alignment: 16)
        defer {
            Sodium.wipe(UnsafeMutableRawBufferPointer(start: buffer, count: SealedFileLayout.pageSize))
            buffer.deallocate()
        }
        func failure(_ location: IntegrityFailure.Location) -> IntegrityFailure {
            IntegrityFailure(path: path, location: location, reason: "fails authentication")
        }
        guard open(at: 0, into: buffer) else { return (failure(.walHeader), frameCount, 0, 0) }
        let salts = buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        var lastCommit: Int64 = 0
        var number: Int64 = 1
        while number <= frameCount {
            let start = SealedFileLayout.walFrameOffset(number)
            guard open(at: start, into: buffer) else { return (failure(.walFrame(UInt64(number))), frameCount, lastCommit, commits(after: lastCommit, frameCount: frameCount, salts: salts)) }
            // A frame of an older log (other salts): the current log ended before it.
            guard buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == salts else { break }
            let isCommit = WALTail.isCommitFrame(buffer, salts: salts)
            guard open(at: start + Int64(SealedFileLayout.walFrameHeaderSize), into: buffer) else {
                return (failure(.walFrame(UInt64(number))), frameCount, lastCommit, commits(after: lastCommit, frameCount: frameCount, salts: salts))
            }
            if isCommit { lastCommit = number }
            number += 1
        }
        return (nil, frameCount, frameCount, 0)
    }

    /// Authenticated commit frames of the log after frame `frame`.
    private func commits(after frame: Int64, frameCount: Int64, salts: UInt64) -> Int {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: SealedFileLayout.pageSize, alignment: 16)
        defer { buffer.deallocate() }
        var count = 0
        var number = frame + 1
        while number <= frameCount {
            if open(at: SealedFileLayout.walFrameOffset(number), into: buffer), WALTail.isCommitFrame(buffer, salts: salts) { count += 1 }
            number += 1
        }
        return count
    }
}
