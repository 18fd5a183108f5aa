#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A block of readable memory that stays valid for as long as this object lives:
/// a read-only memory mapping of a whole file, or a heap buffer (a decrypted page,
/// or a node copied together from several decrypted pages).
///
/// Every read of file bytes goes through a `ByteSpan`, which holds its buffer
/// strongly, so memory is never used after it is released.
final class ByteBuffer: @unchecked Sendable {
    /// The first byte.
    let base: UnsafeRawPointer
    /// The number of readable bytes.
    let count: Int
    private let release: Release

    private enum Release {
        case unmap
        case deallocate
        case none
    }

    private init(base: UnsafeRawPointer, count: Int, release: Release) {
        self.base = base
        self.count = count
        self.release = release
    }

    deinit {
        switch release {
        case .unmap:
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        case .deallocate:
            UnsafeMutableRawPointer(mutating: base).deallocate()
        case .none:
            break
        }
    }

    /// A heap buffer of `count` bytes, filled by `fill`.
    static func allocate(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(RealmFileError) -> Void)
        throws(RealmFileError) -> ByteBuffer
    {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        let buffer = ByteBuffer(base: UnsafeRawPointer(memory), count: count, release: .deallocate)
        try fill(UnsafeMutableRawBufferPointer(start: memory, count: count))
        return buffer
    }

    /// An empty buffer (for zero-length files and spans).
    static let empty: ByteBuffer = {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        return ByteBuffer(base: UnsafeRawPointer(memory), count: 0, release: .deallocate)
    }()

    /// Maps the file at `path` read-only in its entirety. Returns `.empty` for an empty file.
    static func map(path: String) throws(RealmFileError) -> ByteBuffer {
        let fd = open(path, O_RDONLY)
        if fd < 0 { throw .io("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw .io("\(path): \(String(cString: strerror(errno)))") }
        if info.st_mode & S_IFMT == S_IFDIR { throw .io("\(path) is a directory") }
        guard let size = Int(exactly: info.st_size), size >= 0 else { throw .io("\(path): invalid size") }
        if size == 0 { return .empty }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else {
            throw .io("\(path): cannot map \(size) bytes: \(String(cString: strerror(errno)))")
        }
        return ByteBuffer(base: UnsafeRawPointer(address), count: size, release: .unmap)
    }
}

/// A bounds-known window into a `ByteBuffer`. The accessors do not check their
/// offsets: the node layer validates every index against `count` before reading.
struct ByteSpan {
    let buffer: ByteBuffer
    let start: Int
    let count: Int

    @inline(__always)
    func byte(_ offset: Int) -> UInt8 {
        buffer.base.load(fromByteOffset: start &+ offset, as: UInt8.self)
    }

    @inline(__always)
    func uint16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: buffer.base.loadUnaligned(fromByteOffset: start &+ offset, as: UInt16.self))
    }

    @inline(__always)
    func uint32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: buffer.base.loadUnaligned(fromByteOffset: start &+ offset, as: UInt32.self))
    }

    @inline(__always)
    func uint64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: buffer.base.loadUnaligned(fromByteOffset: start &+ offset, as: UInt64.self))
    }

    /// Copies `length` bytes starting at `offset`.
    func bytes(_ offset: Int, _ length: Int) -> [UInt8] {
        if length <= 0 { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: buffer.base + (start &+ offset), count: length))
    }

    /// Decodes `length` bytes starting at `offset` as UTF-8, or returns nil if they are not
    /// valid UTF-8. (`String(decoding:as:)` would replace each invalid sequence with U+FFFD;
    /// a vault string is a Swift `String`, which cannot hold such bytes, so the reader refuses
    /// them rather than deliver a different string.)
    func utf8String(_ offset: Int, _ length: Int) -> String? {
        if length <= 0 { return "" }
        let bytes = UnsafeRawBufferPointer(start: buffer.base + (start &+ offset), count: length)
        // One pass that validates while it copies (nil for bytes that are not UTF-8).
        let text = String(validating: bytes, as: UTF8.self)
        withExtendedLifetime(buffer) {}
        return text
    }

    /// A sub-window; the caller has checked the range.
    func slice(_ offset: Int, _ length: Int) -> ByteSpan {
        ByteSpan(buffer: buffer, start: start &+ offset, count: length)
    }

    /// Runs `body` over the raw bytes of the window.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let result = try body(UnsafeRawBufferPointer(start: buffer.base + start, count: count))
        withExtendedLifetime(buffer) {}
        return result
    }
}
