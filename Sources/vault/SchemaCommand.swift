import ArgumentParser
import Foundation
import VaultCore

/// `vault schema`: the object schema a vault stores (VaultKit's `_vaultkit_schema`).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the classes and properties a VaultKit vault stores, and its schema version (read-only)."
    )

    @Argument(help: "The vault file.")
    var vault: String

    @OptionGroup var key: KeyOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    /// One stored property: `<column> <element> optional|required <kind>` in the stored definition.
    private struct StoredProperty {
        let column: String
        let element: String
        let isOptional: Bool
        let kind: String
        static let valueTypes: Set<String> = ["bool", "int", "float", "double", "string", "data", "date", "uuid", "decimal", "objectId"]

        var collection: String? { element.hasSuffix(">") ? String(element.prefix { $0 != "<" }) : nil }
        var elementType: String { collection == nil ? element : String(element.dropFirst((collection?.count ?? 0) + 1).dropLast()) }
        var objectClassName: String? { Self.valueTypes.contains(elementType) ? nil : elementType }
        var type: String { objectClassName == nil ? elementType : "object" }
    }

    func run() throws {
        var configuration = VaultDatabase.Configuration(fileURL: URL(fileURLWithPath: vault), masterKey: try key.loadKey())
        configuration.readOnly = true
        var classes: [(name: String, properties: [StoredProperty])] = []
        var version: Int64?
        do {
            let database = try VaultDatabase(configuration: configuration)
            defer { database.close() }
            try database.read { db in
                guard try db.fetchOne("SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_schema'") != nil else { return }
                for row in try db.fetchAll("SELECT class_name, definition FROM _vaultkit_schema ORDER BY class_name") {
                    guard let name = row[0].string, let definition = row[1].string else { continue }
                    let properties = definition.split(separator: "\n").compactMap { line -> StoredProperty? in
                        let parts = line.split(separator: " ").map(String.init)
                        guard parts.count == 4 else { return nil }
                        return StoredProperty(column: parts[0], element: parts[1], isOptional: parts[2] == "optional", kind: parts[3])
                    }
                    classes.append((name, properties))
                }
                version = try db.fetchOne("SELECT value FROM _vaultkit_metadata WHERE key = 'schemaVersion'")?[0].int64
            }
        } catch {
            throw fail(error)
        }
        if json {
            printJSON([
                "schemaVersion": version.map { $0 as Any } ?? NSNull(),
                "classes": classes.map { entry -> [String: Any] in
                    ["name": entry.name, "properties": entry.properties.map { property -> [String: Any] in
                        ["columnName": property.column, "type": property.type, "optional": property.isOptional,
                         "collection": property.collection.map { $0 as Any } ?? NSNull(),
                         "objectClassName": property.objectClassName.map { $0 as Any } ?? NSNull(),
                         "primaryKey": property.kind.hasPrefix("primary"), "indexed": property.kind != "plain"]
                    }]
                },
            ])
            return
        }
        guard !classes.isEmpty else {
            print("no VaultKit schema: the vault holds no object classes")
            return
        }
        print("schema version \(version.map(String.init) ?? "none")")
        for entry in classes {
            print("class \(entry.name)")
            for property in entry.properties {
                var element = (property.objectClassName ?? property.type) + (property.isOptional ? "?" : "")
                if let collection = property.collection { element = "\(collection)<\(element)>" }
                let notes = property.kind.hasPrefix("primary") ? "  primary key" : (property.kind == "indexed" ? "  indexed" : "")
                print("  \(property.column): \(element)\(notes)")
            }
        }
    }
}
