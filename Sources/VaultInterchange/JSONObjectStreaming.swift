import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - One object, read member by member
//
// Into a new vault, an object is read from the stream a member at a time: a scalar
// member is read whole (a string is one value, whatever its length), but a list, set
// or dictionary is written as it is read, `batch` elements at a time, under the row id
// the object will have (known before its members: pass 2 read every key). The object's
// own row follows its members. So memory holds one batch of a collection, however
// many millions of elements it has; the collections of embedded objects, which are
// written inside their owner, are read whole.

extension JSONValueDecoding {
    /// Elements of a collection decoded and written together.
    static let batch = 4_096

    /// Reads the object at the reader (before its `{`) of `objectSchema`, writing its
    /// collections to `writer` as they come, and returns its values in schema order
    /// (its collections `.null`: written already) for `writer.insert`.
    func streamObject(_ reader: JSONStreamReader, of objectSchema: ObjectSchema, name: String, owner: Int64,
                      writer: InterchangeWriter) throws -> [InterchangeValue] {
        func refuse(_ property: String, _ reason: String) -> JSONImportError {
            .invalidValue(className: objectSchema.className, object: name, property: property, reason: reason)
        }
        guard try reader.peekNonSpaceByte() == UInt8(ascii: "{") else {
            throw refuse("(object)", "\(try reader.readValue().kindName), not an object")
        }
        var values = [InterchangeValue](repeating: .null, count: objectSchema.properties.count)
        var index: [String: Int] = [:]
        for (offset, property) in objectSchema.properties.enumerated() { index[property.storedName] = offset }
        var given = Set<String>()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(first: &first) {
            guard let offset = index[key] else { throw refuse(key, "the class declares no such property") }
            given.insert(key)
            let property = objectSchema.properties[offset]
            do {
                if property.collectionKind != nil, !property.isEmbeddedLink {
                    try streamCollection(reader, property: property, className: objectSchema.className, propertyIndex: offset,
                                         owner: owner, writer: writer)
                } else {
                    values[offset] = try value(try reader.readValue(), property: property)
                }
            } catch let failure as Failure {
                throw refuse(key, failure.reason)
            } catch let error as InterchangeError {
                throw refuse(key, error.reason)
            } catch VaultError.sqlite(let failure) where failure.code == .constraint {
                throw refuse(key, "a value repeats where values are unique (a set's elements)")
            }
        }
        try Self.requireGiven(objectSchema, name: name) { given.contains($0.storedName) }
        return values
    }

    /// One collection member: `null` (empty), or its elements decoded and written a batch at a time.
    private func streamCollection(_ reader: JSONStreamReader, property: Property, className: String, propertyIndex: Int,
                                  owner: Int64, writer: InterchangeWriter) throws {
        var progress = CollectionProgress()
        var batch: [InterchangeValue] = []
        var entries: [InterchangeEntry] = []
        func element(_ json: JSONValue) throws -> InterchangeValue { json == .null ? .null : try scalar(json, property: property) }
        func flush() throws {
            switch property.collectionKind {
            case .map:
                guard !entries.isEmpty else { return }
                try writer.appendToCollection(.dictionary(entries), className: className, propertyIndex: propertyIndex, owner: owner, progress: &progress)
                entries.removeAll(keepingCapacity: true)
            default:
                guard !batch.isEmpty else { return }
                let part: InterchangeValue = property.collectionKind == .set ? .set(batch) : .list(batch)
                try writer.appendToCollection(part, className: className, propertyIndex: propertyIndex, owner: owner, progress: &progress)
                batch.removeAll(keepingCapacity: true)
            }
        }
        switch try reader.peekNonSpaceByte() {
        case UInt8(ascii: "n"):
            guard try reader.readValue() == .null else { throw Failure(reason: "not a collection") }
        case UInt8(ascii: "[") where property.collectionKind != .map:
            try reader.beginArray()
            var first = true
            while try reader.nextElement(first: &first) {
                batch.append(try element(try reader.readValue()))
                if batch.count == Self.batch { try flush() }
            }
        case UInt8(ascii: "{") where property.collectionKind == .map:
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(first: &first) {
                entries.append(InterchangeEntry(key: key, value: try element(try reader.readValue())))
                if entries.count == Self.batch { try flush() }
            }
        default:
            let found = try reader.readValue().kindName
            throw Failure(reason: "\(found), not \(property.collectionKind == .map ? "an object" : "an array")")
        }
        try flush()
    }
}
