/// The 24-byte file header (realm-core `alloc_slab.hpp` `SlabAlloc::Header`,
/// validated as `SlabAlloc::validate_header` does in `alloc_slab.cpp`):
///
///     0   u64 top_ref[0]
///     8   u64 top_ref[1]
///     16  "T-DB"
///     20  u8  file_format[0], u8 file_format[1]
///     22  reserved
///     23  u8  flags        bit 0 selects slot 0 or 1 for both top ref and format
///
/// A file written by `Group::write` (Realm's `writeCopy`) is on "streaming form":
/// slot 0 is selected and `top_ref[0]` is all ones; the real top ref is in the
/// 16-byte footer at the end of the file, `{u64 top_ref; u64 0x3034125237E526C8}`.
struct FileHeader {
    static let size = 24
    static let footerSize = 16
    static let footerCookie: UInt64 = 0x3034_1252_37E5_26C8

    /// The ref of the top array (0 for an empty, never-committed file).
    let topRef: Int
    /// The file format of the selected slot.
    let fileFormat: Int
    /// Whether the file is on streaming form.
    let isStreamingForm: Bool

    /// Whether `span` (at least 20 bytes) carries the "T-DB" mnemonic at byte 16.
    static func hasMnemonic(_ span: ByteSpan) -> Bool {
        span.count >= 20 && span.byte(16) == 0x54 && span.byte(17) == 0x2D && span.byte(18) == 0x44
            && span.byte(19) == 0x42
    }

    /// Parses and validates the header of `image`.
    init(image: FileImage) throws(RealmFileError) {
        let size = image.size
        guard size >= Self.size else {
            if size >= 20, Self.hasMnemonic(try image.span(at: 0, count: 20)) {
                throw .truncated(expected: Self.size, actual: size)
            }
            throw .notARealmFile
        }
        let header = try image.span(at: 0, count: Self.size)
        guard Self.hasMnemonic(header) else { throw .notARealmFile }
        guard size % 8 == 0 else {
            throw .corrupt("the file size \(size) is not a multiple of 8 (the file is probably truncated)")
        }
        let slot = Int(header.byte(23) & 1)
        fileFormat = Int(header.byte(20 + slot))
        let rawTop = header.uint64(slot * 8)
        if slot == 0 && rawTop == UInt64.max {
            isStreamingForm = true
            guard size >= Self.size + Self.footerSize else {
                throw .truncated(expected: Self.size + Self.footerSize, actual: size)
            }
            let footer = try image.span(at: size - Self.footerSize, count: Self.footerSize)
            guard footer.uint64(8) == Self.footerCookie else {
                throw .truncated(expected: size + 1, actual: size)  // the footer is gone: cut short
            }
            let footerTop = footer.uint64(0)
            guard footerTop < UInt64(size) else {
                throw .corrupt("the footer's top ref 0x\(String(footerTop, radix: 16)) is outside the file (size \(size))")
            }
            topRef = Int(footerTop)
        } else {
            isStreamingForm = false
            guard rawTop < UInt64(size) else {
                throw .truncated(expected: rawTop > UInt64(Int.max - 8) ? Int.max : Int(rawTop) + 8, actual: size)
            }
            topRef = Int(rawTop)
        }
        guard topRef % 8 == 0 else {
            throw .corrupt("the top ref 0x\(String(topRef, radix: 16)) is not 8-byte aligned")
        }
    }
}
