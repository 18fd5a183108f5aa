import Foundation
import RealmFileReader
@_spi(Interchange) import VaultKit

/// Turns the reader's values into the vault writer's: one object at a time,
/// property by property through the class's mapping, embedded objects through
/// theirs, links through the row-id plan. Errors name the class, the object (by
/// its key in the file; an embedded object by its own) and the property.
struct ValueConversion: Sendable {
    let mappings: [String: ClassMapping]
    let rowIDs: RowIDPlan

    /// The values of `object` of class `mapping`, aligned with the vault schema's properties.
    func values(of object: RealmObject, mapping: ClassMapping) throws(RealmImportError) -> [InterchangeValue] {
        var result = [InterchangeValue](repeating: .null, count: mapping.fileIndex.count)
        for (index, fileIndex) in mapping.fileIndex.enumerated() {
            guard let fileIndex, fileIndex < object.values.count else { continue }
            let property = mapping.file.properties[fileIndex]
            let place = Place(className: mapping.file.name, objectKey: object.key, property: property)
            result[index] = try value(object.values[fileIndex], at: place)
        }
        return result
    }

    /// Where a value is: for error messages, and for the target class of embedded objects.
    private struct Place {
        let className: String
        let objectKey: Int64
        let property: RealmPropertySchema

        func refuse(_ reason: String) -> RealmImportError {
            .invalid(className, key: objectKey, property.name, reason)
        }
    }

    private func value(_ value: RealmValue, at place: Place) throws(RealmImportError) -> InterchangeValue {
        switch value {
        case .null: return .null
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .data(let bytes): return .data(Data(bytes))
        case .date(let seconds, let nanoseconds): return .date(VaultTimestamp(seconds: seconds, nanoseconds: nanoseconds))
        case .decimal(let decimal): return .decimal(decimal.description)
        case .objectId(let bytes): return .objectId(bytes)
        case .uuid(let bytes):
            guard bytes.count == 16 else { throw place.refuse("a UUID of \(bytes.count) bytes") }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case .link(let link):
            guard mappings[link.className] != nil else {
                throw place.refuse("a link to \(link.className), which is not a class of the file")
            }
            guard let rowID = rowIDs.rowID(ofLinkTo: link.objectKey, className: link.className) else {
                throw place.refuse("a link to the object with key \(link.objectKey) of \(link.className), which the file does not hold")
            }
            return .link(className: link.className, rowID: rowID)
        case .embedded(let object):
            guard let target = place.property.objectType, let mapping = mappings[target] else {
                throw place.refuse("an embedded object of an unknown class")
            }
            return .embedded(try values(of: object, mapping: mapping))
        case .list(let items):
            var result: [InterchangeValue] = []
            result.reserveCapacity(items.count)
            for item in items { result.append(try self.value(item, at: place)) }
            return .list(result)
        case .set(let items):
            var result: [InterchangeValue] = []
            result.reserveCapacity(items.count)
            for item in items { result.append(try self.value(item, at: place)) }
            return .set(result)
        case .dictionary(let entries):
            var result: [InterchangeEntry] = []
            result.reserveCapacity(entries.count)
            for entry in entries {
                result.append(InterchangeEntry(key: entry.key, value: try self.value(entry.value, at: place)))
            }
            return .dictionary(result)
        }
    }
}
