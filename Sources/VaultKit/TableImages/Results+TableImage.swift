import Foundation
import VaultCore

/// Answering a `Results` from its class's table image (see TableImage.swift).
extension Results {
    /// The image and filter to read these results from, if their class has an
    /// image at the current version (or, with `building`, gets one now because
    /// this filter was read often enough at this version) and the image can
    /// answer them: a class's objects in row-id order, filtered by nothing or by
    /// an ``ImageFilter``.
    func imagePlan(building: Bool) -> (image: TableImage, filter: ImageFilter?)? {
        guard case .table = definition.base, definition.sort.isEmpty, definition.distinct.isEmpty,
              !owner.session.isFrozen, schema.type is Element.Type else { return nil }
        let cache = owner.session.tableImages
        let version = reader.version
        let image = cache.image(for: schema, version: version)
        if image == nil && !building { return nil }
        let predicates = definition.predicates
        let filter: ImageFilter?
        if predicates.isEmpty {
            filter = nil
        } else {
            guard let compiled = ImageFilter(predicates, schema: schema) else { return nil }
            filter = compiled
        }
        if let image { return (image, filter) }
        // Only a filter builds here: a whole class's iteration builds as it goes (Results+Iterator).
        guard filter != nil, cache.recordFilteredRead(schema, version: version),
              let built = owner.readTableImage(schema), cache.store(built) else { return nil }
        return (built, filter)
    }

    /// The row ids of the results, from the class's image at the current
    /// version, if there is one and it can answer them (nil otherwise).
    /// With `building`, a filter read often enough at this version builds the image (see ``imagePlan(building:)``).
    func imageRowIDs(building: Bool) -> [Int64]? {
        guard let (image, filter) = imagePlan(building: building) else { return nil }
        guard let filter else { return image.rowIDs }
        return filter.matchingRows(in: image).map { image.rowIDs[$0] }
    }

    /// The objects of `ids` (in that order, absent ones skipped) from the class's
    /// image at the current version, or nil when there is none.
    func imageObjects(rowIDs ids: [Int64]) -> [ObjectBase]? {
        guard case .table = definition.base, !owner.session.isFrozen,
              let image = owner.session.tableImages.image(for: schema, version: reader.version) else { return nil }
        var rows: [Int] = []
        rows.reserveCapacity(ids.count)
        for id in ids {
            let row = image.firstRow(atOrAfter: id)
            if row < image.count, image.rowIDs[row] == id { rows.append(row) }
        }
        return rows.withUnsafeBufferPointer { owner.materialize(schema, image: image, rows: $0) }
    }
}

extension Vault {
    /// Managed objects for rows `rows` of a table image of `schema`'s class (in
    /// that order), at the image's version (the vault's current one): each reads
    /// its values from the image until it detaches (see ManagedObject+TableImage.swift).
    func materialize(_ schema: ObjectSchema, image: TableImage, rows: UnsafeBufferPointer<Int>) -> [ObjectBase] {
        var objects: [ObjectBase] = []
        objects.reserveCapacity(rows.count)
        materialize(schema, image: image, rows: rows, into: &objects)
        return objects
    }

    /// ``materialize(_:image:rows:)``, appending to `objects` (an iterator's batch, whose room is reused).
    func materialize(_ schema: ObjectSchema, image: TableImage, rows: UnsafeBufferPointer<Int>, into objects: inout [ObjectBase]) {
        let tracksObservation = session.tracksObservation
        image.rowIDs.withUnsafeBufferPointer { rowIDs in
            for row in rows {
                let object = schema.type.init()
                object.manager = ManagedObject(vault: self, schema: schema, image: image, row: row, rowID: rowIDs[row], tracksObservation: tracksObservation)
                objects.append(object)
            }
        }
    }

    /// Every row of `schema`'s class, read into a table image at the current
    /// version; nil when it would pass the images' byte limit.
    func readTableImage(_ schema: ObjectSchema) -> TableImage? {
        let largest = ObjectReader(vault: self).largestRowID(schema)
        var builder = TableImageBuilder(schema: schema, version: session.checkedContentVersion, limit: TableImageCache.byteLimit, expectedRows: Int(clamping: largest))
        collectRows(into: &builder, from: Int64.min)
        return builder.image()
    }

    /// Adds the rows of `builder`'s class from row id `first` on, in row-id
    /// order, to `builder` (one statement, no objects), until they end or pass
    /// its limit. The builder must be of the current version.
    func collectRows(into builder: inout TableImageBuilder, from first: Int64) {
        let schema = builder.schema
        query { db in
            let statement = try db.cachedStatement(
                "SELECT \(schema.aliasedColumnList) FROM \(schema.tableName) t0 WHERE t0.\"_vk_id\" >= ? ORDER BY t0.\"_vk_id\"")
            try statement.bind(single: .integer(first))
            defer { statement.reset() }
            while try statement.step() {
                builder.append(statement)
                if builder.isOverLimit { break }
            }
        }
    }
}
