import Foundation
import VaultCore

extension Results {
    // MARK: Iteration

    /// Iterates in batches: each batch of rows is read with one query and its
    /// objects start with their values cached; a class's rows held in memory
    /// for the current version (a table image, see TableImage.swift) are read from there.
    public func makeIterator() -> Iterator {
        // The keyset query is built on first use: shared state of frozen results.
        if !owner.session.isFrozen { return unlockedIterator() }
        return owner.exclusiveIfFrozen { unlockedIterator() }
    }

    private func unlockedIterator() -> Iterator {
        if !isAbsent, let keyset = compiled.keysetQuery {
            if let plan = imagePlan(building: true) {
                return Iterator(results: self, image: plan.image, filter: plan.filter, keyset: keyset)
            }
            // A class's objects in row-id order, filtered or not: one pass, each
            // matching row read once. Rows added after iteration starts (above the
            // largest row id now) are not visited, as with a snapshot of the ids.
            let largest = reader.largestRowID(schema)
            var iterator = Iterator(results: self, keyset: keyset, largestRowID: largest)
            if definition.isPlainTable, !owner.session.isFrozen, schema.type is Element.Type {
                // Every row passes through: past `isAtReadAheadPoint` the rest are read into the class's image (`readAhead`).
                iterator.builder = TableImageBuilder(schema: schema, version: reader.version, limit: TableImageCache.byteLimit,
                                                     expectedRows: Int(clamping: largest))
            }
            return iterator
        }
        return Iterator(results: self, rowIDs: rowIDs())
    }

    /// Iterates over the objects as they were when iteration started: by
    /// row-id ranges for a class's objects, over a snapshot of the row ids otherwise.
    public struct Iterator: IteratorProtocol {
        let results: Results<Element>
        let rowIDs: [Int64]
        private var position = 0
        /// The batch read last; every member is an `Element` (checked as the batch is read).
        private var batch: [ObjectBase] = []
        private var batchPosition = 0
        /// 64 objects: the batch's array (64 references) must stay under the
        /// 1 KiB at which glibc's malloc first merges its free lists, so that a
        /// batch's freed objects are reused by the next batch's from the fast
        /// free lists. Larger batches (256) made that request once per batch;
        /// smaller ones re-seek the B-tree more often, which costs more than the
        /// allocator saves (see Benchmarks/README.md, "Iteration batch sizes").
        private static var batchSize: Int { 64 }
        /// Objects made from an image at a time: 3, few enough that, with the
        /// previous batch freed first, the batch's allocations (the model object
        /// and its `ManagedObject`, and the strings its reads decode) come from
        /// and go back to glibc's per-thread cache, which keeps seven blocks per
        /// size — even when the model object and its `ManagedObject` fall in the
        /// same size class (six blocks of one size a batch). Past seven blocks of
        /// a size, the rest take malloc's slower paths; 6 was enough until model
        /// objects shrank to the `ManagedObject`'s size class (see
        /// Benchmarks/README.md, "Iteration batch sizes").
        private static var imageBatchSize: Int { 3 }
        /// Keyset iteration: the query, the smallest row id not read yet, the largest to read.
        private var keyset: (query: SQLFragment, from: Int64, largest: Int64)?
        /// The vault and the class, held here as well as in `results`: a client
        /// module runs this code unspecialised, where reading them through the
        /// generic `Results` looks its type metadata up each time, once per object
        /// handed out (see Benchmarks/README.md, "Iteration batch sizes").
        private let vault: Vault
        private let schema: ObjectSchema
        /// Iteration over a table image: the image (nil when not reading one), the
        /// rows its filter matched (nil: every row), the position of the next row to
        /// read, and the keyset query to go on with if the vault's version moves.
        private var image: TableImage? {
            didSet { imageReference = image.map { Unmanaged.passUnretained($0) } }
        }
        /// ``image``, not counted: `next()` reads it through this, so handing out an
        /// object from an image retains and releases nothing for the image (the
        /// strong reference above keeps it alive; see Benchmarks/README.md,
        /// "Objects read from an image").
        private var imageReference: Unmanaged<TableImage>?
        private var imageRows: [Int]?
        private var imageNext = 0
        private var imageKeyset: SQLFragment?
        /// A whole class's keyset iteration, collecting its rows as the class's image.
        fileprivate var builder: TableImageBuilder?
        /// Whether the builder's rows were tried for an image (``readAhead(from:)``).
        private var triedReadAhead = false

        init(results: Results<Element>, rowIDs: [Int64]) {
            self.results = results
            self.rowIDs = rowIDs
            vault = results.owner
            schema = results.schema
        }

        init(results: Results<Element>, keyset query: SQLFragment, largestRowID: Int64) {
            self.init(results: results, rowIDs: [])
            keyset = (query, Int64.min, largestRowID)
        }

        init(results: Results<Element>, image: TableImage, filter: ImageFilter?, keyset query: SQLFragment) {
            self.init(results: results, rowIDs: [])
            self.image = image
            imageReference = Unmanaged.passUnretained(image)   // (no `didSet` in an initialiser)
            // The filter runs once, a column at a time; the loop then visits the matching rows.
            imageRows = filter?.matchingRows(in: image)
            imageKeyset = query
        }

        /// The objects that are `Element`s. A batch comes from one schema, so one
        /// checked cast of its first object stands for all (no dynamic cast per
        /// object, and no second array: `next()` downcasts the one it returns).
        private static func elements(_ objects: [ObjectBase]) -> [ObjectBase] {
            guard let first = objects.first, first is Element, objects.allSatisfy({ type(of: $0) == type(of: first) }) else {
                return objects.filter { $0 is Element }
            }
            return objects
        }

        /// The next object, reading the next batch when the current one is used up.
        public mutating func next() -> Element? {
            if image != nil { return nextFromImage() }
            if keyset != nil { return nextFromKeyset() }
            while batchPosition == batch.count {
                guard position < rowIDs.count else { return nil }
                let ids = Array(rowIDs[position..<Swift.min(position + Self.batchSize, rowIDs.count)])
                position += ids.count
                if results.definition.isPlainTable, let low = ids.first, let high = ids.last {
                    // Row-id order: one range scan reads the batch sequentially.
                    let objects = ObjectReader(vault: vault).objects(schema, rowIDsFrom: low, through: high)
                    var byID: [Int64: ObjectBase] = [:]
                    for object in objects where object is Element {
                        if let id = object.manager?.rowID { byID[id] = object }
                    }
                    // Keep the snapshot's members (rows added meanwhile inside the range are skipped).
                    batch = ids.compactMap { byID[$0] }
                } else {
                    batch = results.fetch(rowIDs: ids).filter { $0 is Element }
                }
                batchPosition = 0
            }
            defer { batchPosition += 1 }
            return unsafeDowncast(batch[batchPosition], to: Element.self)
        }

        private mutating func nextFromKeyset() -> Element? {
            guard let current = keyset else { return nil }
            if batchPosition == batch.count {
                guard current.from <= current.largest else { return finishKeyset() }
                if !triedReadAhead, isAtReadAheadPoint, readAhead(from: current.from) { return nextFromImage() }
                let objects = ObjectReader(vault: vault).objects(schema, current.query, arguments: [.integer(current.from), .integer(current.largest), .integer(Int64(Self.batchSize))])
                if builder != nil { collect(objects) }
                batch = Self.elements(objects)
                batchPosition = 0
                guard let last = objects.last?.manager?.rowID, last < Int64.max else {
                    if objects.isEmpty { return finishKeyset() }
                    // The largest row id there can be: the rest of this batch is the rest (served by `next()`).
                    keyset = nil
                    storeImage()
                    return next()
                }
                keyset?.from = last + 1
                if batch.isEmpty { return nextFromKeyset() }
            }
            defer { batchPosition += 1 }
            return unsafeDowncast(batch[batchPosition], to: Element.self)
        }

        /// The rows a whole class's loop reads as objects before it reads the rest
        /// into the class's image (``readAhead(from:)``): a quarter of the rows
        /// the class likely has (its largest row id), at least a batch. A loop that stops before pays
        /// nothing more; one that stops just after pays for a scan of the other
        /// three quarters without objects (cheaper than reading them as objects),
        /// so an early stop costs at worst a little over twice what it did, and a
        /// loop that reads every row decodes each row once instead of twice (see
        /// TableImage.swift, and Benchmarks/README.md, "Read-ahead at a quarter
        /// of a class").
        private var isAtReadAheadPoint: Bool {
            guard let builder else { return false }
            return builder.rowCount >= Swift.max(Self.batchSize, builder.likelyRows / 4)
        }

        /// A whole class's loop that went past ``isAtReadAheadPoint`` reads the rest of
        /// the class into the image it was collecting, in one statement and
        /// without objects, stores it, and goes on from the image (true): the
        /// objects it hands out then read their values from the image, where
        /// each row read through the statement would be decoded twice (into its
        /// object, and into the builder). Tried once; false (and the loop goes on
        /// with the statement) when the rows would not fit the images' limit at
        /// the mean size of the rows read so far, when the version moved, or when they
        /// passed the limit after all (the builder is then dropped).
        private mutating func readAhead(from rowID: Int64) -> Bool {
            triedReadAhead = true
            guard var collected = builder, collected.version == vault.session.checkedContentVersion, collected.likelyRowsFit,
                  let query = keyset?.query else { return false }
            builder = nil   // (one copy of the rows while they are added to)
            vault.collectRows(into: &collected, from: rowID)
            guard let image = collected.image(), vault.session.tableImages.store(image) else { return false }
            self.image = image
            imageRows = nil
            imageKeyset = query
            keyset = nil
            // The first row not handed out yet: the first at or after `rowID` (the ids ascend).
            imageNext = image.firstRow(atOrAfter: rowID)
            // `batch` stays as it is, used up: its last object is the last one handed
            // out, where ``leaveImage()`` goes on from if the version moves.
            return true
        }

        /// The keyset iteration is over: a whole class read at one version becomes its image.
        private mutating func finishKeyset() -> Element? {
            keyset = nil
            storeImage()
            return nil
        }

        /// Every row was read (and collected, if a builder is collecting): the builder
        /// becomes the class's image if the vault is still at the version it read.
        private mutating func storeImage() {
            if let builder, builder.version == vault.session.checkedContentVersion, let image = builder.image() {
                vault.session.tableImages.store(image)
            }
            builder = nil
        }

        /// Adds a batch's rows to the image being built, or gives up on it if the version moved.
        private mutating func collect(_ objects: [ObjectBase]) {
            guard builder?.version == vault.session.checkedContentVersion else {
                builder = nil
                return
            }
            builder?.append(objects)
            if builder?.isOverLimit == true { builder = nil }
        }

        /// The next object of an image, materialised a batch at a time (column by
        /// column, see `Vault.materialize(_:image:rows:)`); the vault's version is
        /// checked before each object is handed out.
        private mutating func nextFromImage() -> Element? {
            guard let imageReference else { return nil }
            // A retired image (dropped by the cache to stay inside its byte limit) has freed its rows.
            let version = vault.session.checkedContentVersion
            guard imageReference._withUnsafeGuaranteedRef({ $0.version == version && !$0.isRetired }) else { return leaveImage() }
            if batchPosition == batch.count {
                let count = imageRows?.count ?? imageReference._withUnsafeGuaranteedRef { $0.count }
                guard imageNext < count else {
                    self.image = nil
                    return nil
                }
                let end = Swift.min(imageNext + Self.imageBatchSize, count)
                // The previous batch's objects are freed before the next ones are made (see `imageBatchSize`).
                batch.removeAll(keepingCapacity: true)
                imageReference._withUnsafeGuaranteedRef { image in
                    if let imageRows {
                        imageRows.withUnsafeBufferPointer { rows in
                            vault.materialize(schema, image: image, rows: UnsafeBufferPointer(rebasing: rows[imageNext..<end]), into: &batch)
                        }
                    } else {
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: end - imageNext) { rows in
                            for index in rows.indices { rows.initializeElement(at: index, to: imageNext + index) }
                            vault.materialize(schema, image: image, rows: UnsafeBufferPointer(rows), into: &batch)
                        }
                    }
                }
                imageNext = end
                batchPosition = 0
            }
            defer { batchPosition += 1 }
            // `imagePlan` checked that the class's objects are `Element`s.
            return unsafeDowncast(batch[batchPosition], to: Element.self)
        }

        /// The vault moved (a write inside the loop): the rest of the batch is
        /// dropped and the loop goes on from the next row id with the statement, over
        /// the range of row ids the iteration started with (rows that came to match
        /// since are visited too).
        private mutating func leaveImage() -> Element? {
            guard let image else { return nil }
            let lastReturned = batchPosition > 0 ? batch[batchPosition - 1].manager?.rowID : nil
            self.image = nil
            batch = []
            batchPosition = 0
            guard let largest = image.largestRowID, let query = imageKeyset else { return nil }
            var from = Int64.min
            if let lastReturned {
                // The largest row id there can be was the last: nothing comes after it.
                guard lastReturned < largest else { return nil }
                from = lastReturned + 1
            }
            keyset = (query, from, largest)
            return nextFromKeyset()
        }
    }
}
