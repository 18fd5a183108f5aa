import Foundation
import VaultInterchange
@_spi(Interchange) import VaultKit

// The class list, the schema and the JSON export.
extension StudioStore {
    /// `/`: the classes with their counts.
    func indexPage() throws -> StudioResponse {
        let vault = try vault()
        let schemas = vault.storedSchema.objectSchema.sorted { $0.className < $1.className }
        var rows = ""
        for schema in schemas {
            let name = HTML.user(schema.className)
            if schema.isEmbedded {
                rows += "<tr><td>\(name)</td><td class=\"muted\">embedded</td></tr>\n"
            } else {
                let count = vault.dynamicObjects(schema.className).count
                let link = HTML.escape(HTML.path(["class", schema.className]))
                rows += "<tr><td><a href=\"\(link)\">\(name)</a></td><td class=\"count\">\(count)</td></tr>\n"
            }
        }
        let body = """
        <p>\(HTML.user(vault.configuration.fileURL?.path ?? ""))\(allowsWrites ? "" : " <span class=\"muted\">(read-only)</span>")</p>
        <table id="classes"><tr><th>Class</th><th>Objects</th></tr>
        \(rows)</table>
        <p><a href="\(HTML.escape(HTML.path(["schema"])))">Schema</a> · <a href="\(HTML.escape(HTML.path(["export.json"])))">Export as JSON</a></p>
        """
        return .html(title: "Classes", body: body)
    }

    /// `/schema`: every class's properties.
    func schemaPage() throws -> StudioResponse {
        let vault = try vault()
        var body = ""
        for schema in vault.storedSchema.objectSchema.sorted(by: { $0.className < $1.className }) {
            body += "<h2 id=\"class-\(HTML.escape(HTML.percentEncode(schema.className)))\">\(HTML.user(schema.className))\(schema.isEmbedded ? " <span class=\"muted\">(embedded)</span>" : "")</h2>\n"
            body += "<table><tr><th>Property</th><th>Type</th><th>Optional</th><th>Collection</th><th>Link target</th><th>Key / index</th></tr>\n"
            for property in schema.properties {
                var flags: [String] = []
                if property.isPrimaryKey { flags.append("primary key") } else if property.isIndexed { flags.append("indexed") }
                if property.storedName != property.name { flags.append("stored as \(property.storedName)") }
                body += "<tr><td>\(HTML.user(property.name))</td><td>\(HTML.escape(property.type.rawValue))</td>"
                body += "<td>\(property.isOptional ? "yes" : "no")</td><td>\(HTML.escape(property.collectionKind?.rawValue ?? ""))</td>"
                body += "<td>\(HTML.user(property.objectClassName ?? ""))</td><td>\(HTML.user(flags.joined(separator: ", ")))</td></tr>\n"
            }
            body += "</table>\n"
        }
        return .html(title: "Schema", body: body)
    }

    /// `/export.json`: the canonical JSON export.
    func exportJSON() throws -> StudioResponse {
        let vault = try vault()
        let text = try CanonicalJSONExport.string(of: vault)
        let base = vault.configuration.fileURL?.deletingPathExtension().lastPathComponent ?? "vault"
        let safeName = String(base.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }.map(Character.init))
        return StudioResponse(status: 200, contentType: "application/json", body: text,
                              headers: ["Content-Disposition": "attachment; filename=\"\(safeName.isEmpty ? "vault" : safeName).json\""])
    }
}
