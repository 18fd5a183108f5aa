import Foundation

/// Compares the reader's canonical JSON with a fixture's JSON by the README's rules:
/// every class, every property schema, every object (matched by primary key, or by
/// position for classes without one), every value; sets as sets, numbers by value,
/// key order inside objects irrelevant. Returns human-readable differences (empty = equal).
public struct JSONComparison {
    public private(set) var differences: [String] = []
    private let limit = 40

    public init(actual: [String: Any], expected: [String: Any]) {
        compare(actual["schemaVersion"], expected["schemaVersion"], path: "schemaVersion")
        let actualClasses = actual["classes"] as? [String: Any] ?? [:]
        let expectedClasses = expected["classes"] as? [String: Any] ?? [:]
        if Set(actualClasses.keys) != Set(expectedClasses.keys) {
            note("classes: \(actualClasses.keys.sorted()) vs expected \(expectedClasses.keys.sorted())")
        }
        for (name, expectedClass) in expectedClasses {
            guard let actualClass = actualClasses[name] as? [String: Any],
                  let expectedClass = expectedClass as? [String: Any] else { continue }
            compareClass(actualClass, expectedClass, name: name)
        }
    }

    private mutating func note(_ text: String) {
        if differences.count < limit { differences.append(text) }
    }

    private mutating func compareClass(_ actual: [String: Any], _ expected: [String: Any], name: String) {
        compare(actual["embedded"], expected["embedded"], path: "\(name).embedded")
        compare(actual["primaryKey"], expected["primaryKey"], path: "\(name).primaryKey")
        let actualProperties = actual["properties"] as? [[String: Any]] ?? []
        let expectedProperties = expected["properties"] as? [[String: Any]] ?? []
        if actualProperties.count != expectedProperties.count {
            note("\(name): \(actualProperties.count) properties, expected \(expectedProperties.count)")
        }
        for (a, e) in zip(actualProperties, expectedProperties) {
            let property = "\(name).\(e["name"] ?? "?")"
            for field in ["name", "type", "optional", "collection"] {
                compare(a[field], e[field], path: "\(property) \(field)")
            }
            compare(a["objectType"], e["objectType"], path: "\(property) objectType")
            compare(a["primaryKey"] ?? false, e["primaryKey"] ?? false, path: "\(property) primaryKey")
            compare(a["indexed"] ?? false, e["indexed"] ?? false, path: "\(property) indexed")
        }
        guard let expectedObjects = expected["objects"] as? [[String: Any]] else {
            if actual["objects"] != nil { note("\(name): objects listed for an embedded class") }
            return
        }
        let actualObjects = actual["objects"] as? [[String: Any]] ?? []
        if actualObjects.count != expectedObjects.count {
            note("\(name): \(actualObjects.count) objects, expected \(expectedObjects.count)")
            return
        }
        let setProperties = Set(expectedProperties.filter { $0["collection"] as? String == "set" }
            .compactMap { $0["name"] as? String })
        if let pk = expected["primaryKey"] as? String {
            var byKey: [String: [String: Any]] = [:]
            for object in actualObjects { byKey[Self.keyText(object[pk])] = object }
            for object in expectedObjects {
                let key = Self.keyText(object[pk])
                guard let match = byKey[key] else {
                    note("\(name): no object with primary key \(key)")
                    continue
                }
                compareObject(match, object, path: "\(name)[\(key)]", sets: setProperties)
            }
        } else {
            for (index, (a, e)) in zip(actualObjects, expectedObjects).enumerated() {
                compareObject(a, e, path: "\(name)[#\(index)]", sets: setProperties)
            }
        }
    }

    private static func keyText(_ value: Any?) -> String {
        if let number = value as? NSNumber { return number.stringValue }
        return "\(value ?? "nil")"
    }

    private mutating func compareObject(_ actual: [String: Any], _ expected: [String: Any], path: String,
                                        sets: Set<String>) {
        if Set(actual.keys) != Set(expected.keys) {
            note("\(path): properties \(actual.keys.sorted()) vs expected \(expected.keys.sorted())")
        }
        for (key, expectedValue) in expected {
            if sets.contains(key), let a = actual[key] as? [Any], let e = expectedValue as? [Any] {
                compareAsSets(a, e, path: "\(path).\(key)")
            } else {
                compare(actual[key], expectedValue, path: "\(path).\(key)")
            }
        }
    }

    private mutating func compareAsSets(_ actual: [Any], _ expected: [Any], path: String) {
        let a = actual.map(Self.canonical).sorted()
        let e = expected.map(Self.canonical).sorted()
        if a != e { note("\(path): set \(a) vs expected \(e)") }
    }

    /// A canonical text of a JSON value (for set comparison).
    public static func canonical(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSDecimalNumber:
            // JSONSerialization keeps long literals as decimals; non-integers compare as doubles.
            let text = number.stringValue
            if text.contains(".") || text.contains("e") || text.contains("E"), let double = Double(text) {
                return "\(double)"
            }
            return text
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return number.boolValue ? "true" : "false" }
            if type == "d" || type == "f" {
                let double = number.doubleValue
                if double == double.rounded(), abs(double) < 9.0e15 { return String(Int64(double)) }
                return "\(double)"
            }
            return number.stringValue
        case let text as String: return "\"\(text)\""
        case let array as [Any]: return "[" + array.map(canonical).joined(separator: ",") + "]"
        case let object as [String: Any]:
            return "{" + object.keys.sorted().map { "\($0):\(canonical(object[$0] ?? NSNull()))" }
                .joined(separator: ",") + "}"
        default: return "\(value)"
        }
    }

    private mutating func compare(_ actual: Any?, _ expected: Any?, path: String) {
        switch (actual, expected) {
        case (nil, nil): return
        case (nil, is NSNull), (is NSNull, nil): return
        case let (a as [Any], e as [Any]):
            if a.count != e.count {
                note("\(path): \(a.count) elements, expected \(e.count)")
                return
            }
            for (index, (x, y)) in zip(a, e).enumerated() { compare(x, y, path: "\(path)[\(index)]") }
        case let (a as [String: Any], e as [String: Any]):
            if Set(a.keys) != Set(e.keys) {
                note("\(path): keys \(a.keys.sorted()) vs expected \(e.keys.sorted())")
                return
            }
            for (key, value) in e { compare(a[key], value, path: "\(path).\(key)") }
        default:
            let a = actual.map(Self.canonical) ?? "nil"
            let e = expected.map(Self.canonical) ?? "nil"
            if a != e { note("\(path): \(a) vs expected \(e)") }
        }
    }
}
