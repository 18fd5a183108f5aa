import Foundation
import VaultCore

// MARK: - Table images: a class's rows in memory, for one version
//
// Realm's reads are memory reads: its file is mapped, its columns are arrays,
// and a query is a loop over an array. VaultKit's rows live in an encrypted
// B-tree, so every query is a statement that unseals pages, walks cells,
// decodes records and tests each row, row by row: a cost per row *scanned*,
// whatever the query keeps. A query that keeps one row in ten pays that ten
// times per object it returns, which is why a filtered query was several
// times Realm's per match when everything else was close (see
// Benchmarks/README.md, "Table images").
//
// A *table image* is a class's rows decoded once and kept in memory for the
// version they were read at: the row ids in ascending order, and each row's
// column values (the values a managed object is built from). While the vault
// stays at that version, iterating the class, or a filtered `Results` of it
// whose filter the image can test (`ImageFilter`), reads the image: the
// filter is a loop over values, and the matches become managed objects that
// read their values from the image itself (ManagedObject+TableImage.swift:
// no row is copied unless something needs it copied). The objects are
// the same objects, at the same version, with the same values, as those the
// statement would give; only where the values come from differs.
//
// WHEN AN IMAGE IS BUILT. Never speculatively: a query run once pays nothing.
// - Iterating a whole class (no filter, no sort) reads its rows through the
//   statement, as objects, a batch of 64 at a time, and copies their values
//   into a builder, a column at a time. A loop that ends, or stops, before it
//   has read a quarter of the rows the class likely has (its largest row id;
//   at least one batch) has paid for nothing more; if the loop reaches the
//   end at the version it started at, the builder becomes the class's image.
//   A loop that goes on past that quarter is taken to be reading the class:
//   it reads the rest of the rows into the builder in one statement, without
//   objects (values copied from SQLite's own memory, no `String` made for
//   text), the builder becomes the class's image, and the loop goes on from
//   the image, handing out objects that read their values from it. Each of
//   those rows is decoded once instead of twice (into its object and into
//   the builder). The point is a quarter, not the first batch: reading ahead
//   sooner saves a little more on a full loop, but a loop that stops at its
//   65th object would then scan the whole class. A scan without objects
//   costs less than reading the same rows as objects, so with a quarter a
//   loop that stops early costs at worst a little over twice what it did
//   (Benchmarks/README.md, "Read-ahead at a quarter of a class"). The
//   read-ahead is not tried when the rows read so far say the class would
//   pass the byte limit below; should its rows pass the limit after all, the
//   builder is dropped and the loop goes on with the statement from where it
//   was.
// - A filtered `Results` the image could answer, read for the
//   `TableImageCache.readsBeforeBuilding`-th time at one version, reads the
//   whole class into an image first (one statement, no objects), then
//   answers from it: by then the class has been scanned that many times at
//   this version, so a scan that makes the next ones loops over memory is
//   the cheaper course.
//
// WHEN AN IMAGE IS DROPPED. An image is valid for exactly one content version
// (`VaultSession.contentVersion`, which every write, every property set, every
// rollback and every advance to another commit moves), as the primary-key
// cache is: there is nothing to patch and nothing to miss. The session frees
// its images the moment its version moves (`VaultSession.contentVersion`'s
// observer), so a stale image never holds memory: dropping one retires it,
// and the objects still reading from it copy their rows out first. An iteration that
// meets a moved version (a write inside the loop) drops the rest of the batch
// it made (the version is checked before each object is handed out) and
// continues from the row after the last one it returned, with the statement
// it would have used, over the same range of row ids, so it returns what it
// returned before images existed.
//
// BOUNDS. Images are per vault instance (one per thread or actor), at most
// one per class, and an instance's images together hold at most
// `TableImageCache.byteLimit` bytes by the estimate below; a class whose
// image would not fit is not imaged (the builder stops copying as soon as it
// passes the limit). Frozen vaults, read from many threads, have none.
//
// WHAT THE IMAGE CANNOT ANSWER stays with SQLite: sorted or distinct
// results, collections and backlinks, key paths through links, string
// operators, `[c]`/`[d]`, mixed and decimal properties, and anything else
// `ImageFilter` does not compile. It gives SQLite's answer or no answer.

/// One class's rows at one content version: row ids ascending, and the
/// values of each column (in `ObjectSchema.columnIndexes` order), row by row.
final class TableImage {
    /// The schema object the rows were read with.
    let schema: ObjectIdentifier
    /// The content version the rows are of.
    let version: UInt64
    /// Row ids, ascending (empty once retired).
    private(set) var rowIDs: [Int64]
    /// The columns, each with a value per row (empty once retired).
    private(set) var columns: [ImageColumn]
    /// The memory the image holds, estimated.
    let byteCount: Int
    /// The largest row id, kept past retirement (an iteration leaving the image goes on up to it).
    let largestRowID: Int64?
    /// The cache dropped the image and its rows are freed (see ``retire()``).
    private(set) var isRetired = false
    /// The first of the objects reading their values from this image (see ManagedObject+TableImage.swift).
    /// Not retained (see ManagedObject's `imageReference`).
    @exclusivity(unchecked) var firstObject: Unmanaged<ManagedObject>?
    /// A reader per property of the schema, by property index (a property that
    /// is not a column has ``ImageColumnReader/absent``), freed with the rows: a
    /// plain buffer, so that a read reaches a column's arrays through a pointer,
    /// borrowing them, and needs no column lookup.
    let readers: UnsafeMutablePointer<ImageColumnReader>
    private let readerCount: Int

    /// `columnIndexes`: the property index of each column (`ObjectSchema.columnIndexes`),
    /// among `propertyCount` properties.
    fileprivate init(schema: ObjectIdentifier, version: UInt64, rowIDs: [Int64], columns: [ImageColumn], byteCount: Int,
                     columnIndexes: [Int], propertyCount: Int) {
        self.schema = schema
        self.version = version
        self.rowIDs = rowIDs
        self.columns = columns
        self.byteCount = byteCount
        largestRowID = rowIDs.last
        readerCount = Swift.max(propertyCount, 1)
        readers = .allocate(capacity: readerCount)
        readers.initialize(repeating: .absent, count: readerCount)
        for (column, property) in columnIndexes.enumerated() where column < columns.count && property < readerCount {
            readers[property] = ImageColumnReader(columns[column])
        }
    }

    deinit {
        // The cache retires every image it lets go of, so no object should read
        // from one that goes; should one still, it copies its row out now, as at
        // retirement (its pointer to this image counts no reference).
        while let object = firstObject { object._withUnsafeGuaranteedRef { _ = $0.detachFromImage() } }
        // A retired image freed its readers then.
        if !isRetired { freeReaders() }
    }

    /// Row `row`'s value of property `property` (a column); NULL once the image
    /// is retired (no object reads a retired image: they detach first).
    @inline(__always)
    func value(row: Int, property: Int) -> DatabaseValue {
        guard !isRetired else { return .null }
        return readers[property].value(at: row)
    }

    /// Frees the rows (``retire()``, once no object reads from them).
    func freeRows() {
        guard !isRetired else { return }
        isRetired = true
        rowIDs = []
        columns = []
        freeReaders()
    }

    /// Frees the readers and their buffer (once: at retirement, or at the end).
    private func freeReaders() {
        readers.deinitialize(count: readerCount)
        readers.deallocate()
    }

    /// The number of rows.
    var count: Int { rowIDs.count }

    /// The index of the first row whose id is `rowID` or larger (``count`` if none):
    /// a binary search, the ids ascending.
    func firstRow(atOrAfter rowID: Int64) -> Int {
        rowIDs.withUnsafeBufferPointer { ids in
            var low = 0, high = ids.count
            while low < high {
                let middle = (low + high) / 2
                if ids[middle] < rowID { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
    /// The number of columns.
    var columnCount: Int { columns.count }
}

/// Collects rows into a ``TableImage``, in ascending row-id order, until it
/// would hold more than a limit (then it stops collecting: ``isOverLimit``).
struct TableImageBuilder {
    let schema: ObjectSchema
    let version: UInt64
    private let limit: Int
    private var rowIDs: [Int64] = []
    private var columns: [ImageColumn]
    /// The column of a required `Int` primary key, which is the row id: not
    /// collected, but made from the row ids at the end (see ``image()``).
    private let rowIDKeyColumn: Int?
    /// The rows room was made for (see `init`).
    private let expectedRows: Int
    /// How many rows the class likely has, as given to `init` (not capped).
    let likelyRows: Int
    /// Text is reserved for once this many rows show its mean length.
    private static let rowsBeforeReservingText = 256
    /// The rows would not fit: nothing more is collected, and ``image()`` gives nil.
    private(set) var isOverLimit = false
    /// Whether room was made for text (see ``reserveText()``).
    private var hasReservedText = false

    /// `expectedRows`: how many rows the class likely has (its largest row id,
    /// which a dense table's count is close to), for reserving room up front;
    /// capped by what the limit could hold.
    init(schema: ObjectSchema, version: UInt64, limit: Int, expectedRows: Int) {
        self.schema = schema
        self.version = version
        self.limit = limit
        columns = Array(repeating: ImageColumn(), count: schema.columnIndexes.count)
        rowIDKeyColumn = schema.columnIndexes.firstIndex { schema.properties[$0].isRowIDKey }
        let rows = Swift.max(0, Swift.min(expectedRows, limit / (8 * (columns.count + 1))))
        self.expectedRows = rows
        likelyRows = Swift.max(0, expectedRows)
        rowIDs.reserveCapacity(rows)
        for (column, index) in schema.columnIndexes.enumerated() { columns[column].reserve(rows: rows, for: schema.properties[index].type) }
    }

    /// What one `DatabaseValue` held as itself costs: its slot, and the bytes a
    /// text or blob holds on the heap beyond the slot (Swift keeps up to 15
    /// UTF-8 bytes inline), with an allocation's overhead.
    @inline(__always)
    static func estimatedBytes(of value: DatabaseValue) -> Int {
        let slot = MemoryLayout<DatabaseValue>.stride
        switch value {
        case .text(let text): return text.utf8.count > 15 ? slot + text.utf8.count + 32 : slot
        case .blob(let data): return data.count > 14 ? slot + data.count + 32 : slot
        default: return slot
        }
    }

    /// The bytes collected so far, estimated.
    var byteCount: Int { rowIDs.count * MemoryLayout<Int64>.size + columns.reduce(0) { $0 + $1.byteCount } }

    /// The rows collected so far.
    var rowCount: Int { rowIDs.count }

    /// Whether the rows the class likely has (``likelyRows``), at the mean size
    /// of those collected so far, would fit under the limit.
    var likelyRowsFit: Bool {
        guard !isOverLimit, !rowIDs.isEmpty else { return false }
        let perRow = Double(byteCount) / Double(rowIDs.count)
        return perRow * Double(Swift.max(likelyRows, rowIDs.count)) <= Double(limit)
    }

    /// Adds the rows of a batch of managed objects just read (their values are
    /// the rows' at ``version``), a column at a time: each column's kind is
    /// tested once per value and its arrays are not looked up per value, which
    /// keeps collecting to a fraction of what reading the rows costs. The limit
    /// is checked after every value, so a class of large values stops the
    /// builder at the value that passes it.
    mutating func append(_ objects: [ObjectBase]) {
        guard !isOverLimit else { return }
        var storages: [UnsafeMutablePointer<DatabaseValue>] = []
        storages.reserveCapacity(objects.count)
        for object in objects {
            guard let manager = object.manager else { continue }
            rowIDs.append(manager.rowID)
            storages.append(manager.storage)
        }
        var budget = limit - byteCount
        let skipped = rowIDKeyColumn ?? -1
        let fits = storages.withUnsafeBufferPointer { storages in
            columns.withUnsafeMutableBufferPointer { columns in
                schema.columnIndexes.withUnsafeBufferPointer { indexes in
                    for column in indexes.indices where column != skipped {
                        let before = columns[column].byteCount
                        guard columns[column].append(storages, property: indexes[column], limit: before + budget) else { return false }
                        budget -= columns[column].byteCount - before
                    }
                    return true
                }
            }
        }
        if fits { reserveText() } else { stop() }
    }

    /// Adds the statement's current row (`_vk_id`, then the class's columns).
    mutating func append(_ statement: Statement) {
        guard !isOverLimit else { return }
        rowIDs.append(statement.int64(at: 0))
        for column in columns.indices where column != rowIDKeyColumn { columns[column].append(borrowed: statement.borrowedValue(at: column + 1)) }
        checkLimit()
    }

    /// Checked after every row (a few additions), so a class of large values stops
    /// the builder at the row that passes the limit, not rows later. Once the
    /// first rows show the text columns' mean lengths, room is made for the text
    /// of the rows expected (so that the byte arrays do not grow by copying).
    private mutating func checkLimit() {
        reserveText()
        if byteCount > limit { stop() }
    }

    /// Once the first rows show the text columns' mean lengths, makes room for the
    /// text of the rows expected, once (so that the byte arrays do not grow by copying).
    private mutating func reserveText() {
        guard !hasReservedText, rowIDs.count >= Self.rowsBeforeReservingText else { return }
        hasReservedText = true
        guard expectedRows > rowIDs.count else { return }
        for column in columns.indices { columns[column].reserveText(rows: expectedRows) }
    }

    /// The rows would not fit: what was collected is freed and nothing more is.
    private mutating func stop() {
        isOverLimit = true
        rowIDs = []
        columns = []
    }

    /// The image of the rows collected, or nil when they passed the limit.
    func image() -> TableImage? {
        let bytes = byteCount
        guard !isOverLimit, bytes <= limit else { return nil }
        var columns = columns
        if let rowIDKeyColumn { columns[rowIDKeyColumn] = ImageColumn(integers: rowIDs) }
        return TableImage(schema: ObjectIdentifier(schema), version: version, rowIDs: rowIDs, columns: columns, byteCount: bytes,
                          columnIndexes: schema.columnIndexes, propertyCount: schema.properties.count)
    }
}
