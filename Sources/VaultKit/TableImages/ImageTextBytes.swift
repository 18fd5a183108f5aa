import Foundation

/// A text column's UTF-8 bytes, end to end, in memory the column owns outright
/// (`malloc`'d, grown with `realloc`, freed when the last column or reader
/// holding it goes).
///
/// Why not a `[UInt8]`: an object's getter reads its text from the image
/// (``ImageColumnReader``), and reaching an array's bytes from there retains
/// and releases the array on every read. An array's buffer address may not be
/// kept past `withUnsafeBufferPointer`; memory from `malloc` stays where it is
/// until it is freed, so a reader may keep ``base`` for as long as it keeps
/// this object, and a read is a pointer and two offsets, with no reference
/// count touched (see Benchmarks/README.md, "Objects read from an image").
/// Growing by `realloc` also moves no bytes for a large column (the C library
/// remaps the pages), where an array copies into a new buffer of twice the
/// size, both held at once.
///
/// The bytes change only while the column is built (one owner, appending);
/// a column copied while building (a struct copy) gets its own bytes before it
/// appends (``ImageColumn`` checks ``isKnownUniquelyReferenced(_:)``), and once
/// the image is made nothing appends again.
final class ImageTextBytes {
    /// The first byte (nil while nothing was reserved or appended).
    private(set) var base: UnsafeMutablePointer<UInt8>?
    /// The bytes in use.
    private(set) var count = 0
    /// The bytes allocated.
    private var capacity = 0

    init() {}

    deinit { free(base) }

    /// A copy of the bytes in use (for a column copied while it is built).
    func copy() -> ImageTextBytes {
        let copy = ImageTextBytes()
        copy.reserve(count)
        if let base, count > 0, let target = copy.base {
            target.initialize(from: base, count: count)
        }
        copy.count = count
        return copy
    }

    /// Makes room for `total` bytes in all.
    func reserve(_ total: Int) {
        guard total > capacity else { return }
        guard let grown = realloc(base, total) else {
            // Out of memory: nothing sensible can continue (as Swift's own allocator does for an array).
            fatalError("VaultKit could not allocate \(total) bytes for a table image's text")
        }
        // `realloc` keeps the bytes in use (initialised as `UInt8`) and leaves the rest unbound: bind it all.
        base = grown.bindMemory(to: UInt8.self, capacity: total)
        capacity = total
    }

    /// Appends `bytes`.
    @inline(__always)
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let needed = count &+ bytes.count
        if needed > capacity { reserve(Swift.max(needed, capacity &* 2, 64)) }
        guard let base else { return }
        (base + count).initialize(from: source, count: bytes.count)
        count = needed
    }

    /// Appends the bytes of a sequence (a string whose UTF-8 is not contiguous).
    func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        for byte in bytes {
            withUnsafePointer(to: byte) { append(UnsafeBufferPointer(start: $0, count: 1)) }
        }
    }

    /// The bytes from `start` up to `end` (within ``count``), for the length of `body`.
    @inline(__always)
    func withBytes<Result>(from start: Int, to end: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(self) { try body(UnsafeBufferPointer(start: base.map { $0 + start }, count: end - start)) }
    }
}
