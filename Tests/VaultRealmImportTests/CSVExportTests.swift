import Foundation
import Testing
import VaultRealmImport
@_spi(Interchange) import VaultKit
@testable import VaultInterchange
import VaultTestSupport

/// `vault export --format csv`: one file per class, a schema header, lossless cells.
@Suite("CSV export")
struct CSVExportTests {
    /// RFC 4180 rows; a cell is nil when it was empty and unquoted (null).
    static func parse(_ text: String) -> [[String?]] {
        var rows: [[String?]] = [], row: [String?] = [], cell = "", quoted = false, inQuotes = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if inQuotes {
                if character == "\"" {
                    if characters.first == "\"" { cell.append("\""); characters.removeFirst() } else { inQuotes = false }
                } else { cell.append(character) }
                continue
            }
            switch character {
            case "\"": inQuotes = true; quoted = true
            case ",": row.append(quoted || !cell.isEmpty ? cell : nil); cell = ""; quoted = false
            case "\r\n", "\n":
                row.append(quoted || !cell.isEmpty ? cell : nil); rows.append(row); row = []; cell = ""; quoted = false
            default: cell.append(character)
            }
        }
        return rows
    }

    @Test func allTypesAsCSV() throws {
        let directory = try TemporaryDirectory("csv-export")
        let vaultURL = directory.file("alltypes.vault")
        try Vault.importRealm(at: ImportFixtures.url("alltypes.realm"), into: ImportFixtures.configuration(vaultURL))
        let vault = try Vault(configuration: ImportFixtures.configuration(vaultURL, schemaVersion: 1))
        let files = try CSVExport.write(vault, toDirectory: directory.file("csv"))
        #expect(files.map(\.lastPathComponent) == ["AllTypes.csv", "Target.csv"])
        let rows = Self.parse(try String(contentsOf: files[0], encoding: .utf8))
        let header = try #require(rows.first).map { $0 ?? "" }
        #expect(header.prefix(4) == ["_id:int", "req_int:int", "opt_int:int?", "list_int:list<int>"])
        #expect(header.contains("map_mixed:dictionary<mixed?>") && header.contains("link:object<Target>") && header.contains("emb:object<Emb>"))
        #expect(rows.count == 101)

        // Every cell against the JSON export of the same vault.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(CanonicalJSONExport.string(of: vault).utf8)) as? [String: Any])
        let objects = try #require(((json["classes"] as? [String: Any])?["AllTypes"] as? [String: Any])?["objects"] as? [[String: Any]])
        for (row, object) in zip(rows.dropFirst(), objects) {
            for (cell, column) in zip(row, header) {
                let name = String(column.prefix { $0 != ":" })
                let value = object[name]
                switch value {
                case is NSNull, nil: #expect(cell == nil, "\(name) should be empty (null)")
                case let text as String where name.hasSuffix("_string"): #expect(cell == text, "\(name)")
                case let number as NSNumber where name.hasSuffix("_int") || name == "_id": #expect(cell == number.stringValue, "\(name)")
                default: #expect(cell != nil, "\(name) is missing")
                }
            }
        }
        // Null and the empty string stay apart.
        let text = try String(contentsOf: files[0], encoding: .utf8)
        #expect(text.contains(",,") && text.contains("\r\n"))
    }

    @Test func datesAreRFC3339ToTheNanosecond() {
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: 0, nanoseconds: 0)) == "1970-01-01T00:00:00.000000000Z")
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: -2, nanoseconds: 500_000_000)) == "1969-12-31T23:59:58.500000000Z")
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: 951_782_400, nanoseconds: 1)) == "2000-02-29T00:00:00.000000001Z")
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: -62_135_596_800, nanoseconds: 0)) == "0001-01-01T00:00:00.000000000Z")
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999)) == "9999-12-31T23:59:59.999999999Z")
        #expect(CSVText.rfc3339(VaultTimestamp(seconds: 253_402_300_800, nanoseconds: 0)) == nil)
        #expect(CSVText.cell("") == "\"\"" && CSVText.cell("a,b") == "\"a,b\"" && CSVText.cell("say \"hi\"") == "\"say \"\"hi\"\"\"")
    }
}
