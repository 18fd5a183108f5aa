import Foundation
import VaultCore
@_spi(Interchange) import VaultKit

// MARK: - CSV export
//
// One file per top-level class, `<Class>.csv`, RFC 4180 (comma-separated, CRLF
// line ends, a cell quoted when it holds a comma, a quote or a line break, quotes
// doubled), objects in the JSON export's order. The first line is the schema:
// one `name:type` cell per property, the type spelled `int`, `string?`,
// `list<double>`, `set<string>`, `dictionary<mixed?>`, `object<Target>`
// (linking-objects properties are left out). Then one line per object.
//
// Cells are lossless for every type:
//   - null is an empty cell; an empty string is a quoted empty cell ("");
//   - int, bool, float, double as in the JSON encoding (%.17g, NaN, Infinity, -Infinity);
//   - string as it is; data as base64; decimal as its text; objectId as 24 hex
//     digits; uuid in its lower-case form;
//   - date as RFC 3339 in UTC with nine fractional digits
//     (1969-12-31T23:59:59.500000000Z), years 0001–9999; outside them, the JSON
//     form {"seconds":…,"nanoseconds":…};
//   - links, embedded objects, lists, sets, dictionaries and mixed values as
//     their canonical JSON text (a link: the target's primary key, or
//     {"class","index"}).

/// Writes every top-level class of a vault as a CSV file (the format is described above).
public enum CSVExport {
    /// Writes `<Class>.csv` for each top-level class into `directory` (created if needed;
    /// existing files are never overwritten). Returns the files written.
    /// - Parameters:
    ///   - vault: The vault to export.
    ///   - directory: Where the files go.
    ///   - progress: Called with (objects written, objects in the vault) every 1,000 objects and at the end.
    /// - Throws: `VaultError.inUse` if a file of that name exists; reading and writing errors.
    @discardableResult
    public static func write(_ vault: Vault, toDirectory directory: URL, progress: ((Int, Int) -> Void)? = nil) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try vault.readInterchange { reader in
            var written: [URL] = []
            let total = progress == nil ? 0 : try reader.schemas.filter { !$0.isEmbedded }.reduce(0) { $0 + (try reader.count(of: $1.className)) }
            var done = 0
            for schema in reader.schemas where !schema.isEmbedded {
                let url = directory.appendingPathComponent(schema.className + ".csv")
                guard !FileManager.default.fileExists(atPath: url.path),
                      FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                      let handle = FileHandle(forWritingAtPath: url.path) else {
                    throw VaultError.inUse(path: url.path, detail: "a file exists there or cannot be created; nothing is overwritten")
                }
                defer { try? handle.close() }
                let output = BufferedOutput(handle: handle)
                let encoder = Encoder(reader: reader, output: output)
                let properties = schema.properties.enumerated().filter { !$0.element.isLinkingObjects }
                try output.append(properties.map { CSVText.cell("\($0.element.storedName):\(CSVText.typeName($0.element))") }.joined(separator: ",") + "\r\n")
                try reader.forEachObject(of: schema.className) { _, values in
                    let cells = try properties.map { index, property in try CSVText.cell(values[index], property: property, encoder: encoder) }
                    try output.append(cells.joined(separator: ",") + "\r\n")
                    done += 1
                    if let progress, done % 1_000 == 0 || done == total { progress(done, total) }
                }
                try output.flush()
                written.append(url)
            }
            return written
        }
    }
}

/// CSV spellings.
enum CSVText {
    /// `int`, `string?`, `list<double>`, `dictionary<mixed?>`, `object<Target>`.
    static func typeName(_ property: Property) -> String {
        var element = property.type == .object ? "object<\(property.objectClassName ?? "?")>" : property.type.rawValue
        if property.isOptional && property.type != .object { element += "?" }
        guard let collection = property.collectionKind else { return element }
        return "\(collection == .map ? "dictionary" : collection.rawValue)<\(element)>"
    }

    /// A text as a cell: quoted when it must be (or is empty, to tell it from null).
    static func cell(_ text: String) -> String {
        if text.isEmpty { return "\"\"" }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func cell(_ value: InterchangeValue, property: Property, encoder: Encoder) throws -> String {
        if property.collectionKind != nil || property.type == .mixed || property.type == .object {
            if case .null = value, property.collectionKind == nil { return "" }
            return cell(try encoder.encode(value, property: property))
        }
        switch value {
        case .null: return ""
        case .string(let text): return cell(text)
        case .data(let bytes): return cell(bytes.base64EncodedString())
        case .decimal(let text): return cell(text)
        case .objectId(let bytes): return JSONText.hex(bytes)
        case .uuid(let uuid): return uuid.uuidString.lowercased()
        case .date(let timestamp): return cell(rfc3339(timestamp) ?? "{\"seconds\":\(timestamp.seconds),\"nanoseconds\":\(timestamp.nanoseconds)}")
        case .float(let number): return cell(JSONText.number(Double(number)).replacingOccurrences(of: "\"", with: ""))
        case .double(let number): return cell(JSONText.number(number).replacingOccurrences(of: "\"", with: ""))
        default: return cell(try encoder.encode(value, property: property))
        }
    }

    /// RFC 3339 in UTC with nanoseconds, for years 1…9999 (nil outside).
    static func rfc3339(_ timestamp: VaultTimestamp) -> String? {
        let (days, secondOfDay) = timestamp.seconds.quotientAndRemainder(dividingBy: 86_400)
        let day = secondOfDay < 0 ? days - 1 : days
        let second = secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay
        // Civil date from days since 1970-01-01 (the proleptic Gregorian calendar).
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1...9999).contains(year) else { return nil }
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):"
            + "\(pad(second % 60, 2)).\(pad(Int64(timestamp.nanoseconds), 9))Z"
    }
}
