/// The bytes of a Realm file as Realm Core sees them (its "data" positions):
/// the file itself when it is plain, the decrypted pages when it is encrypted.
///
/// Refs are offsets into this image. `span(at:count:)` is the only way to read
/// it, and it checks that the whole range lies inside the image.
final class FileImage: Sendable {
    private enum Backing: Sendable {
        case plain(ByteBuffer)
        case encrypted(EncryptedPages)
    }

    private let backing: Backing
    /// The logical size in bytes.
    let size: Int

    /// A plain (unencrypted) file, mapped.
    init(plain: ByteBuffer) {
        backing = .plain(plain)
        size = plain.count
    }

    /// An encrypted file, decrypted on demand.
    init(encrypted: EncryptedPages) {
        backing = .encrypted(encrypted)
        size = encrypted.dataSize
    }

    /// Whether the image is decrypted from an encrypted file.
    var isEncrypted: Bool {
        if case .encrypted = backing { return true }
        return false
    }

    /// Authenticates every written page of an encrypted file; does nothing for a plain file.
    func verifyAllPages() throws(RealmFileError) {
        if case let .encrypted(pages) = backing { try pages.verifyAllPages() }
    }

    /// The `count` bytes at `offset`. Throws `.truncated` if the range leaves the image.
    func span(at offset: Int, count: Int) throws(RealmFileError) -> ByteSpan {
        guard offset >= 0, count >= 0 else { throw .corrupt("negative offset \(offset) or length \(count)") }
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= size else { throw .truncated(expected: overflow ? Int.max : end, actual: size) }
        switch backing {
        case let .plain(buffer):
            return ByteSpan(buffer: buffer, start: offset, count: count)
        case let .encrypted(pages):
            return try encryptedSpan(pages, offset: offset, count: count)
        }
    }

    private func encryptedSpan(_ pages: EncryptedPages, offset: Int, count: Int) throws(RealmFileError) -> ByteSpan {
        let pageSize = EncryptedPages.pageSize
        let firstPage = offset / pageSize
        let lastPage = count == 0 ? firstPage : (offset + count - 1) / pageSize
        if firstPage == lastPage {
            let page = try pages.page(firstPage)
            return ByteSpan(buffer: page, start: offset - firstPage * pageSize, count: count)
        }
        // A range across pages is copied together into one buffer.
        let buffer = try ByteBuffer.allocate(count: count) { out throws(RealmFileError) in
            var copied = 0
            var page = firstPage
            while copied < count {
                let decrypted = try pages.page(page)
                let inPage = page == firstPage ? offset - firstPage * pageSize : 0
                let length = min(pageSize - inPage, count - copied)
                guard let destination = out.baseAddress else { return }
                (destination + copied).copyMemory(from: decrypted.base + inPage, byteCount: length)
                withExtendedLifetime(decrypted) {}
                copied += length
                page += 1
            }
        }
        return ByteSpan(buffer: buffer, start: 0, count: count)
    }
}
