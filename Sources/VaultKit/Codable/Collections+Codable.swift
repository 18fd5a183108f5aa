import Foundation

// Collections encode as JSON arrays (maps as objects) and decode into unmanaged
// collections, as RealmSwift's do. Managed collections encode their current contents.

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the decoded elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the decoded elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

/// A map key as a coding key.
private struct MapCodingKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension Map: Decodable where Value: Decodable {
    /// An unmanaged map of the decoded entries (a keyed container).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for codingKey in container.allKeys {
            guard let key = Key(mapKeyString: codingKey.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: codingKey, in: container, debugDescription: "not a valid map key")
            }
            self[key] = try container.decode(Value.self, forKey: codingKey)
        }
    }
}

extension Map: Encodable where Value: Encodable {
    /// Encodes the entries as a keyed container.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for (key, value) in self { try container.encode(value, forKey: MapCodingKey(stringValue: key.mapKeyString)) }
    }
}

extension Results: Encodable where Element: Encodable {
    /// Encodes the matching objects in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension AnyVaultCollection: Encodable where Element: Encodable {
    /// Encodes the elements in order, as the wrapped collection does (Realm's `AnyRealmCollection`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}
