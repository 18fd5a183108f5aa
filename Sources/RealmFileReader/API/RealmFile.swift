import Foundation

/// A `.realm` file opened read-only: its schema and its objects.
///
/// Reads files of formats 22, 23 and 24 (Realm Core 11 to 20, RealmSwift 10.8 and
/// later), plain or encrypted with Realm's 64-byte key. A plain file is memory-mapped;
/// an encrypted file is decrypted page by page on demand through a bounded cache.
/// Nothing is ever written. A `RealmFile` may be used from several threads at once.
///
/// ```swift
/// let realm = try RealmFile(url: url)
/// for cls in realm.classes where !cls.isEmbedded {
///     try realm.forEachObject(ofClass: cls.name) { object in print(object.values) }
/// }
/// ```
public final class RealmFile: Sendable {
    private let image: FileImage
    private let header: FileHeader
    private let schema: FileSchema

    /// The file format version of the header's selected slot (22, 23 or 24).
    public let fileFormatVersion: Int
    /// The schema version stored by the Object Store in the `metadata` table, or nil if the
    /// file has none (or is marked unversioned).
    public let schemaVersion: UInt64?
    /// The classes: tables named `class_<Name>` with `class_` removed, in the file's table order.
    public let classes: [RealmClassSchema]

    /// Opens a .realm file read-only.
    ///
    /// - Parameters:
    ///   - url: The file's location.
    ///   - encryptionKey: Realm's 64-byte key (AES key ‖ HMAC key), or nil for a plain file.
    /// - Throws: `RealmFileError` — `.invalidKeyLength`, `.encryptionKeyRequired`,
    ///   `.fileNotEncrypted`, `.wrongEncryptionKey`, `.notARealmFile`, `.truncated`,
    ///   `.unsupportedFileFormat`, `.corrupt`, `.unsupportedColumnType` or `.io`.
    public init(url: URL, encryptionKey: [UInt8]? = nil) throws(RealmFileError) {
        if let key = encryptionKey, key.count != 64 { throw .invalidKeyLength(key.count) }
        let file = try ByteBuffer.map(path: url.path)
        let image: FileImage
        let fileSpan = ByteSpan(buffer: file, start: 0, count: file.count)
        if let key = encryptionKey {
            if FileHeader.hasMnemonic(fileSpan) { throw .fileNotEncrypted }
            guard file.count >= 2 * EncryptedPages.pageSize else {
                throw file.count == 0 ? .notARealmFile : .truncated(expected: 2 * EncryptedPages.pageSize, actual: file.count)
            }
            let pages = EncryptedPages(cipherText: file, cipher: PageCipher(key: key))
            guard pages.firstPageAuthenticates() else { throw .wrongEncryptionKey }
            image = FileImage(encrypted: pages)
            // The HMAC half of the key was right; if the AES half is wrong, page 0 decrypts to noise.
            guard FileHeader.hasMnemonic(try image.span(at: 0, count: 20)) else { throw .wrongEncryptionKey }
        } else {
            if !FileHeader.hasMnemonic(fileSpan) && Self.looksEncrypted(fileSpan) { throw .encryptionKeyRequired }
            image = FileImage(plain: file)
        }
        let header = try FileHeader(image: image)
        guard (22...24).contains(header.fileFormat) || (header.topRef == 0 && header.fileFormat == 0) else {
            throw .unsupportedFileFormat(header.fileFormat)
        }
        let session = ReadSession(image: image, fileFormat: header.fileFormat, schema: .empty)
        let schema = try SchemaReader.read(topRef: header.topRef, session: session)
        self.image = image
        self.header = header
        self.schema = schema
        fileFormatVersion = header.fileFormat
        classes = schema.tables.compactMap { table in
            guard let table, table.isClass else { return nil }
            return RealmClassSchema(
                name: table.className, isEmbedded: table.kind == .embedded, isAsymmetric: table.kind == .asymmetric,
                primaryKey: table.primaryKeyColumn.map { table.columns[$0].name },
                properties: table.columns.map(\.property))
        }
        schemaVersion = try Self.readSchemaVersion(schema: schema, image: image, fileFormat: header.fileFormat)
    }

    /// The number of objects of class `className`.
    public func objectCount(ofClass className: String) throws(RealmFileError) -> Int {
        let table = try classTable(className)
        let session = makeSession()
        var total = 0
        for (ref, offset) in try leafRefs(table, session: session) {
            total += try ClusterLeaf(node: try session.node(ref, "cluster"), keyOffset: offset, session: session).rowCount
        }
        return total
    }

    /// Visits every object of class `className` in the file's order (ObjKey order), decoding
    /// column leaves one cluster (up to 256 objects) at a time. Embedded objects appear inline
    /// in their owners; embedded classes can be iterated too.
    ///
    /// - Throws: the error `body` throws, unchanged; reader failures as `RealmFileError`.
    public func forEachObject(ofClass className: String, _ body: (RealmObject) throws -> Void) throws {
        let table = try classTable(className)
        let session = makeSession()
        for (ref, offset) in try leafRefs(table, session: session) {
            session.location = "table \(table.name)"
            let cluster = try ClusterLeaf(node: try session.node(ref, "cluster"), keyOffset: offset, session: session)
            let cursor = try ClusterLeafCursor(table: table, cluster: cluster, session: session)
            for row in 0..<cluster.rowCount {
                let object = try cursor.object(at: row, session: session, depth: 0)
                try body(object)
            }
        }
    }

    /// Visits the key (`RealmObject.key`) of every object of class `className`, in the
    /// file's order, without decoding any value: cheaper than `forEachObject` when only
    /// which objects exist matters (for example, to check that links reach objects).
    ///
    /// - Throws: the error `body` throws, unchanged; reader failures as `RealmFileError`.
    public func forEachObjectKey(ofClass className: String, _ body: (Int64) throws -> Void) throws {
        let table = try classTable(className)
        let session = makeSession()
        for (ref, offset) in try leafRefs(table, session: session) {
            let cluster = try ClusterLeaf(node: try session.node(ref, "cluster"), keyOffset: offset, session: session)
            for row in 0..<cluster.rowCount { try body(cluster.key(at: row)) }
        }
    }

    /// Checks the HMAC of every written page of an encrypted file (a full integrity check
    /// that also covers pages no object refers to); does nothing for a plain file.
    public func verifyEncryptedPages() throws(RealmFileError) {
        try image.verifyAllPages()
    }

    // MARK: Internals

    private func makeSession() -> ReadSession {
        ReadSession(image: image, fileFormat: header.fileFormat, schema: schema)
    }

    private func classTable(_ className: String) throws(RealmFileError) -> TableInfo {
        guard let table = schema.table(named: "class_" + className) else { throw .unknownClass(className) }
        return table
    }

    /// The refs and key offsets of the table's cluster leaves, in order.
    private func leafRefs(_ table: TableInfo, session: ReadSession) throws(RealmFileError) -> [(Int, Int64)] {
        session.location = "table \(table.name)"
        guard table.clusterRoot != 0 else { return [] }
        var refs: [(Int, Int64)] = []
        try ClusterTree.forEachLeaf(root: table.clusterRoot, session: session) { (leaf: ClusterLeaf) throws(RealmFileError) in
            refs.append((leaf.node.ref, leaf.keyOffset))
        }
        return refs
    }

    private static func readSchemaVersion(schema: FileSchema, image: FileImage, fileFormat: Int)
        throws(RealmFileError) -> UInt64?
    {
        guard let table = schema.table(named: "metadata"), table.clusterRoot != 0,
              let column = table.columns.firstIndex(where: { $0.name == "version" }) else { return nil }
        let session = ReadSession(image: image, fileFormat: fileFormat, schema: schema)
        session.location = "table metadata"
        var version: UInt64?
        try ClusterTree.forEachLeaf(root: table.clusterRoot, session: session) { (leaf: ClusterLeaf) throws(RealmFileError) in
            guard version == nil, leaf.rowCount > 0 else { return }
            let cursor = try ClusterLeafCursor(table: table, cluster: leaf, session: session)
            if case let .int(value) = try cursor.object(at: 0, session: session, depth: 0).values[column], value != -1 {
                version = UInt64(bitPattern: value)
            }
        }
        return version
    }

    /// Whether a file without the plain header looks like an encrypted Realm file: whole
    /// 4096-byte pages, at least two, and a first IV-table entry that records a written page.
    private static func looksEncrypted(_ file: ByteSpan) -> Bool {
        let pageSize = EncryptedPages.pageSize
        guard file.count >= 2 * pageSize, file.count % pageSize == 0 else { return false }
        guard file.uint32(0) != 0 else { return false }
        // Entries past the last data page of the first block are zero in a real file.
        let filePages = file.count / pageSize
        let dataPagesInFirstBlock = min(filePages - 1, EncryptedPages.pagesPerBlock)
        for entry in dataPagesInFirstBlock..<EncryptedPages.pagesPerBlock {
            for offset in stride(from: entry * 64, to: entry * 64 + 64, by: 8) where file.uint64(offset) != 0 {
                return false
            }
        }
        return true
    }
}
