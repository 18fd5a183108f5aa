import Foundation

/// The decrypted view of an encrypted Realm file, one 4096-byte page at a time
/// (realm-core `util/encrypted_file_mapping.cpp`).
///
/// Layout: the file is a sequence of blocks, each one IV-table page followed by up
/// to 64 data pages. The IV table holds one 64-byte entry per data page:
/// `u32 iv1, u8 hmac1[28], u32 iv2, u8 hmac2[28]`. Data page `p` (data position
/// `p·4096`) is stored at file position `p·4096 + (p/64 + 1)·4096`; its entry is at
/// `(p/64)·65·4096 + (p%64)·64`.
///
/// A page whose `iv1` is 0 was never written and reads as zeros. Otherwise the
/// HMAC-SHA224 of its ciphertext must equal `hmac1`, or `hmac2` (a write torn
/// between updating the IV table and the page), and the page is decrypted with
/// AES-256-CBC, IV = `iv` (4 bytes) ‖ the page's data position (8 bytes, LE) ‖ 4 zero bytes.
///
/// Decrypted pages are kept in a bounded LRU cache; nothing else of the file is held.
final class EncryptedPages: @unchecked Sendable {
    static let pageSize = 4096
    static let pagesPerBlock = 64
    static let defaultCachePages = 1024  // 4 MiB

    private let cipherText: ByteBuffer
    private let cipher: PageCipher
    /// The number of data pages the file holds (complete or not).
    let dataPageCount: Int
    /// The logical (decrypted) size in bytes.
    let dataSize: Int

    private let lock = NSLock()
    private var cache: PageLRU

    /// Prepares to read `cipherText` (the mapped encrypted file) with `cipher`.
    init(cipherText: ByteBuffer, cipher: PageCipher, cachePages: Int = EncryptedPages.defaultCachePages) {
        self.cipherText = cipherText
        self.cipher = cipher
        let pageSize = Self.pageSize
        let filePages = cipherText.count / pageSize
        // Every started block of 65 pages has one IV-table page.
        let metadataPages = (filePages + Self.pagesPerBlock) / (Self.pagesPerBlock + 1)
        dataPageCount = max(0, filePages - metadataPages)
        dataSize = dataPageCount * pageSize
        cache = PageLRU(capacity: max(cachePages, 4))
    }

    /// The IV-table entry of data page `page`: (iv1, hmac1, iv2, hmac2), or nil if outside the file.
    func ivEntry(page: Int) -> (iv1: UInt32, hmac1: [UInt8], iv2: UInt32, hmac2: [UInt8])? {
        let block = page / Self.pagesPerBlock
        let position = block * (Self.pagesPerBlock + 1) * Self.pageSize + (page % Self.pagesPerBlock) * 64
        guard position + 64 <= cipherText.count else { return nil }
        let span = ByteSpan(buffer: cipherText, start: position, count: 64)
        return (span.uint32(0), span.bytes(4, 28), span.uint32(32), span.bytes(36, 28))
    }

    /// Whether page 0 authenticates with this key (false for a wrong key).
    func firstPageAuthenticates() -> Bool {
        guard let entry = ivEntry(page: 0), entry.iv1 != 0 else { return false }
        guard let cipherPage = cipherPage(0) else { return false }
        let mac = cipherPage.withUnsafeBytes { cipher.hmac(of: $0) }
        return mac == entry.hmac1 || (entry.iv2 != 0 && mac == entry.hmac2)
    }

    private func cipherPage(_ page: Int) -> ByteSpan? {
        let position = page * Self.pageSize + (page / Self.pagesPerBlock + 1) * Self.pageSize
        guard page >= 0, position + Self.pageSize <= cipherText.count else { return nil }
        return ByteSpan(buffer: cipherText, start: position, count: Self.pageSize)
    }

    /// The decrypted page `page` (4096 bytes).
    func page(_ page: Int) throws(RealmFileError) -> ByteBuffer {
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache.get(page) { return cached }
        let decrypted = try decryptPage(page)
        cache.put(page, decrypted)
        return decrypted
    }

    /// Authenticates every written data page (a full integrity check of the file).
    func verifyAllPages() throws(RealmFileError) {
        for page in 0..<dataPageCount {
            guard let entry = ivEntry(page: page), entry.iv1 != 0 else { continue }
            guard let cipherPage = cipherPage(page) else { throw .truncated(expected: 0, actual: cipherText.count) }
            let mac = cipherPage.withUnsafeBytes { cipher.hmac(of: $0) }
            if mac != entry.hmac1 && !(entry.iv2 != 0 && mac == entry.hmac2) {
                throw .decryptionFailed(page: page)
            }
        }
    }

    private func decryptPage(_ page: Int) throws(RealmFileError) -> ByteBuffer {
        guard page >= 0, page < dataPageCount, let entry = ivEntry(page: page),
              let cipherPage = cipherPage(page) else {
            throw .truncated(expected: (page + 1) * Self.pageSize, actual: dataSize)
        }
        if entry.iv1 == 0 {
            return try ByteBuffer.allocate(count: Self.pageSize) { out throws(RealmFileError) in
                out.initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
        let mac = cipherPage.withUnsafeBytes { cipher.hmac(of: $0) }
        let iv: UInt32
        if mac == entry.hmac1 {
            iv = entry.iv1
        } else if entry.iv2 != 0 && mac == entry.hmac2 {
            iv = entry.iv2
        } else if entry.iv2 != 0, cipherPage.withUnsafeBytes({ $0.allSatisfy { $0 == 0 } }) {
            // Realm's "stale HMAC" case: space the file once shrank and regrew reads as zeros.
            return try ByteBuffer.allocate(count: Self.pageSize) { out throws(RealmFileError) in
                out.initializeMemory(as: UInt8.self, repeating: 0)
            }
        } else {
            throw .decryptionFailed(page: page)
        }
        var ivBytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: iv.littleEndian) { ivBytes.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt64(page * Self.pageSize).littleEndian) { ivBytes.replaceSubrange(4..<12, with: $0) }
        let pageCipher = self.cipher
        return try ByteBuffer.allocate(count: Self.pageSize) { out throws(RealmFileError) in
            let ok = cipherPage.withUnsafeBytes { pageCipher.decrypt(page: $0, iv: ivBytes, into: out) }
            if !ok { throw .decryptionFailed(page: page) }
        }
    }
}

/// A fixed-capacity least-recently-used map from page number to decrypted page.
struct PageLRU {
    private let capacity: Int
    private var slots: [Int: Int] = [:]
    private var keys: [Int] = []
    private var values: [ByteBuffer] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    private var head = -1  // most recently used
    private var tail = -1  // least recently used

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func get(_ key: Int) -> ByteBuffer? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return values[slot]
    }

    mutating func put(_ key: Int, _ value: ByteBuffer) {
        if let slot = slots[key] {
            values[slot] = value
            moveToFront(slot)
            return
        }
        let slot: Int
        if keys.count < capacity {
            slot = keys.count
            keys.append(key)
            values.append(value)
            previous.append(-1)
            next.append(-1)
        } else {
            slot = tail
            unlink(slot)
            slots[keys[slot]] = nil
            keys[slot] = key
            values[slot] = value
        }
        slots[key] = slot
        linkAtFront(slot)
    }

    private mutating func moveToFront(_ slot: Int) {
        if head == slot { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let p = previous[slot]
        let n = next[slot]
        if p >= 0 { next[p] = n } else if head == slot { head = n }
        if n >= 0 { previous[n] = p } else if tail == slot { tail = p }
        previous[slot] = -1
        next[slot] = -1
    }

    private mutating func linkAtFront(_ slot: Int) {
        previous[slot] = -1
        next[slot] = head
        if head >= 0 { previous[head] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
