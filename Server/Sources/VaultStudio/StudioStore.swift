import Foundation
import VaultCore
import VaultInterchange
import VaultKit

/// Errors shown as 404 (unknown class or object) or 400 (a value that does not parse).
enum StudioError: Error, CustomStringConvertible {
    case notFound(String)
    case badRequest(String)
    case forbidden(String)

    var description: String {
        switch self {
        case .notFound(let text), .badRequest(let text), .forbidden(let text): text
        }
    }
}

/// The vault, confined to this actor: every read and write of it happens in
/// these methods, which return rendered pages (Sendable strings).
public actor StudioStore {
    /// Objects on one class page.
    static let pageSize = 50
    /// Items of a collection shown beside its count.
    static let previewCount = 3

    private let configuration: Vault.Configuration
    /// Whether the pages offer forms and the POST routes write.
    public nonisolated let allowsWrites: Bool
    private var openedVault: Vault?

    /// A store for the vault at `fileURL`; nothing is opened until ``open()``.
    /// `readOnly`, or a file this process cannot write, opens it read-only.
    public init(fileURL: URL, key: MasterKey, readOnly: Bool) throws {
        let writable = FileManager.default.isWritableFile(atPath: fileURL.path)
            && FileManager.default.isWritableFile(atPath: fileURL.deletingLastPathComponent().path)
        let readOnly = readOnly || !writable
        var configuration = Vault.Configuration(fileURL: fileURL, readOnly: readOnly)
        configuration.masterKey = key
        configuration.schemaVersion = try schemaVersionAtURL(fileURL, encryptionKey: configuration.encryptionKey)
        self.configuration = configuration
        self.allowsWrites = !readOnly
    }

    /// Opens the vault (confined to this actor), so that a wrong key or a damaged file shows before the server starts.
    public func open() throws {
        _ = try vault()
    }

    private func vault() throws -> Vault {
        if let openedVault { return openedVault }
        let vault = try Vault(configuration: configuration, isolation: self)
        openedVault = vault
        return vault
    }

    // MARK: Pages

    /// `/TOKEN/`: the classes with their counts.
    func indexPage(token: String) throws -> StudioResponse {
        let vault = try vault()
        let schemas = vault.storedSchema.objectSchema.sorted { $0.className < $1.className }
        var rows = ""
        for schema in schemas {
            let name = HTML.escape(schema.className)
            if schema.isEmbedded {
                rows += "<tr><td>\(name)</td><td class=\"muted\">embedded</td></tr>\n"
            } else {
                let count = vault.dynamicObjects(schema.className).count
                let link = HTML.escape(HTML.path(token: token, ["class", schema.className]))
                rows += "<tr><td><a href=\"\(link)\">\(name)</a></td><td class=\"count\">\(count)</td></tr>\n"
            }
        }
        let body = """
        <p>\(HTML.escape(vault.configuration.fileURL?.path ?? ""))\(allowsWrites ? "" : " <span class=\"muted\">(read-only)</span>")</p>
        <table id="classes"><tr><th>Class</th><th>Objects</th></tr>
        \(rows)</table>
        <p><a href="\(HTML.escape(HTML.path(token: token, ["schema"])))">Schema</a> · <a href="\(HTML.escape(HTML.path(token: token, ["export.json"])))">Export as JSON</a></p>
        """
        return .html(title: "Classes", token: token, body: body)
    }

    /// `/TOKEN/schema`: every class's properties.
    func schemaPage(token: String) throws -> StudioResponse {
        let vault = try vault()
        var body = ""
        for schema in vault.storedSchema.objectSchema.sorted(by: { $0.className < $1.className }) {
            body += "<h2 id=\"class-\(HTML.escape(schema.className))\">\(HTML.escape(schema.className))\(schema.isEmbedded ? " <span class=\"muted\">(embedded)</span>" : "")</h2>\n"
            body += "<table><tr><th>Property</th><th>Type</th><th>Optional</th><th>Collection</th><th>Link target</th><th>Key / index</th></tr>\n"
            for property in schema.properties {
                var flags: [String] = []
                if property.isPrimaryKey { flags.append("primary key") } else if property.isIndexed { flags.append("indexed") }
                if property.storedName != property.name { flags.append("stored as \(property.storedName)") }
                body += "<tr><td>\(HTML.escape(property.name))</td><td>\(HTML.escape(property.type.rawValue))</td>"
                body += "<td>\(property.isOptional ? "yes" : "no")</td><td>\(HTML.escape(property.collectionKind?.rawValue ?? ""))</td>"
                body += "<td>\(HTML.escape(property.objectClassName ?? ""))</td><td>\(HTML.escape(flags.joined(separator: ", ")))</td></tr>\n"
            }
            body += "</table>\n"
        }
        return .html(title: "Schema", token: token, body: body)
    }

    /// `/TOKEN/export.json`: the canonical JSON export.
    func exportJSON() throws -> StudioResponse {
        let vault = try vault()
        let text = try CanonicalJSONExport.string(of: vault)
        let base = vault.configuration.fileURL?.deletingPathExtension().lastPathComponent ?? "vault"
        let safeName = String(base.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }.map(Character.init))
        return StudioResponse(status: 200, contentType: "application/json", body: text,
                              headers: ["Content-Disposition": "attachment; filename=\"\(safeName.isEmpty ? "vault" : safeName).json\""])
    }

    /// `/TOKEN/class/NAME`: a page of objects, sorted and filtered.
    func classPage(token: String, className: String, page: Int, sort: String?, ascending: Bool, query: String?) throws -> StudioResponse {
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let all = vault.dynamicObjects(className)
        var results = all
        var problems: [String] = []
        let queryText = query?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !queryText.isEmpty {
            do {
                results = try results.filter(queryText, arguments: [])
            } catch {
                problems.append(error.description)
            }
        }
        var sortKey: String?
        if let sort, !sort.isEmpty {
            if let property = schema[sort], property.collectionKind == nil, property.type != .object {
                do {
                    results = try results.sorted(byKeyPathThrowing: sort, ascending: ascending)
                    sortKey = sort
                } catch {
                    problems.append(error.description)
                }
            } else {
                problems.append("\(className) cannot be sorted by '\(sort)'")
            }
        }
        let count = results.count
        let pageCount = max(1, (count + Self.pageSize - 1) / Self.pageSize)
        let page = min(max(page, 1), pageCount)
        let start = (page - 1) * Self.pageSize
        let end = min(start + Self.pageSize, count)

        // Objects without a primary key are named by their position in the unsorted, unfiltered results.
        var positions: [DynamicObject: Int] = [:]
        let needsPositions = schema.primaryKeyProperty == nil && results.count > 0 && (sortKey != nil || !queryText.isEmpty)
        if needsPositions {
            for (index, object) in all.enumerated() { positions[object] = index }
        }

        let columns = schema.properties
        func pageLink(_ number: Int, sortKey: String?, ascending: Bool) -> String {
            var query: [(String, String)] = [("page", String(number))]
            if let sortKey { query += [("sort", sortKey), ("asc", ascending ? "1" : "0")] }
            if !queryText.isEmpty { query.append(("query", queryText)) }
            return HTML.escape(HTML.path(token: token, ["class", className], query: query))
        }

        var body = """
        <form id="query-form" method="GET" action="\(HTML.escape(HTML.path(token: token, ["class", className])))">
        <input type="text" name="query" size="60" placeholder="age &gt; 30 AND name BEGINSWITH 'A'" value="\(HTML.escape(queryText))">
        \(sortKey.map { "<input type=\"hidden\" name=\"sort\" value=\"\(HTML.escape($0))\"><input type=\"hidden\" name=\"asc\" value=\"\(ascending ? "1" : "0")\">" } ?? "")
        <button type="submit">Query</button></form>

        """
        if !problems.isEmpty {
            body += "<div id=\"query-error\" class=\"error\">\(problems.map(HTML.escape).joined(separator: "<br>"))</div>\n"
        }
        body += "<p id=\"summary\">\(count) object\(count == 1 ? "" : "s")\(queryText.isEmpty || !problems.isEmpty ? "" : " matching the query") · page \(page) of \(pageCount)</p>\n"
        body += "<table id=\"objects\"><tr><th></th>"
        for property in columns {
            let nextAscending = sortKey == property.name ? !ascending : true
            let arrow = sortKey == property.name ? (ascending ? " ▲" : " ▼") : ""
            if property.collectionKind == nil && property.type != .object {
                body += "<th><a href=\"\(pageLink(1, sortKey: property.name, ascending: nextAscending))\">\(HTML.escape(property.name))</a>\(arrow)</th>"
            } else {
                body += "<th>\(HTML.escape(property.name))</th>"
            }
        }
        body += "</tr>\n"
        if start < end {
            for position in start..<end {
                let object = results[position]
                let key: String
                if let pk = schema.primaryKeyProperty {
                    key = Self.keyText(object[pk.name])
                } else {
                    key = "@\(needsPositions ? (positions[object] ?? position) : position)"
                }
                let link = HTML.escape(HTML.path(token: token, ["object", className, key]))
                body += "<tr><td><a class=\"object-link\" href=\"\(link)\">open</a></td>"
                for property in columns {
                    body += "<td>\(render(object[property.name], property: property, vault: vault, token: token))</td>"
                }
                body += "</tr>\n"
            }
        }
        body += "</table>\n<p class=\"pager\">"
        body += page > 1 ? "<a id=\"previous\" href=\"\(pageLink(page - 1, sortKey: sortKey, ascending: ascending))\">Previous</a>" : "<span class=\"muted\">Previous</span>"
        body += " · "
        body += page < pageCount ? "<a id=\"next\" href=\"\(pageLink(page + 1, sortKey: sortKey, ascending: ascending))\">Next</a>" : "<span class=\"muted\">Next</span>"
        body += "</p>\n"
        return .html(title: className, token: token, body: body)
    }

    /// `/TOKEN/object/NAME/KEY`: one object, its backlinks, and (when writable) its forms.
    func objectPage(token: String, className: String, key: String) throws -> StudioResponse {
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        let selfPath = HTML.path(token: token, ["object", className, key])
        var body = "<p><a href=\"\(HTML.escape(HTML.path(token: token, ["class", className])))\">All \(HTML.escape(className)) objects</a></p>\n"
        body += "<table id=\"properties\"><tr><th>Property</th><th>Type</th><th>Value</th>\(allowsWrites ? "<th>Edit</th>" : "")</tr>\n"
        for property in schema.properties {
            let value = object[property.name]
            body += "<tr><td>\(HTML.escape(property.name))\(property.isPrimaryKey ? " <span class=\"muted\">(primary key)</span>" : "")</td>"
            body += "<td>\(HTML.escape(Self.typeText(property)))</td>"
            body += "<td id=\"value-\(HTML.escape(property.name))\">\(render(value, property: property, vault: vault, token: token, preview: 20))</td>"
            if allowsWrites {
                if Self.isEditable(property) {
                    let current = value.map(Self.editText) ?? ""
                    body += """
                    <td><form class="inline edit" method="POST" action="\(HTML.escape(selfPath + "/set"))">\
                    <input type="hidden" name="property" value="\(HTML.escape(property.name))">\
                    <input type="text" name="value" value="\(HTML.escape(current))" data-property="\(HTML.escape(property.name))">\
                    <button type="submit">Save</button></form></td>
                    """
                } else {
                    body += "<td></td>"
                }
            }
            body += "</tr>\n"
        }
        body += "</table>\n"
        if allowsWrites {
            body += "<form id=\"delete-form\" method=\"POST\" action=\"\(HTML.escape(selfPath + "/delete"))\"><button type=\"submit\">Delete this object</button></form>\n"
        }
        body += "<h2>Linked from</h2>\n" + backlinks(of: object, className: className, vault: vault, token: token)
        return .html(title: "\(className) \(key)", token: token, body: body)
    }

    /// POST `/TOKEN/object/NAME/KEY/set`: writes one scalar property.
    func setValue(className: String, key: String, property name: String, text: String) throws {
        guard allowsWrites else { throw StudioError.forbidden("the studio is read-only") }
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        guard let property = schema[name] else { throw StudioError.badRequest("\(className) has no property '\(name)'") }
        guard Self.isEditable(property) else { throw StudioError.badRequest("\(className).\(name) cannot be edited here") }
        let parsed = try Self.parse(text, for: property, className: className)
        try vault.write { object[property.name] = parsed }
    }

    /// POST `/TOKEN/object/NAME/KEY/delete`.
    func deleteObject(className: String, key: String) throws {
        guard allowsWrites else { throw StudioError.forbidden("the studio is read-only") }
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        try vault.write { vault.delete(object) }
    }

    // MARK: Objects

    private func topLevelSchema(_ className: String, in vault: Vault) throws -> ObjectSchema {
        guard let schema = vault.storedSchema[className], !schema.isEmbedded else {
            throw StudioError.notFound("There is no class named \(className) in this vault.")
        }
        return schema
    }

    /// The object named by `key`: its primary key's text, or `@INDEX` for a class without one.
    private func resolve(className: String, key: String, schema: ObjectSchema, vault: Vault) throws -> DynamicObject {
        let notFound = StudioError.notFound("There is no \(className) object with key \(key).")
        guard let pk = schema.primaryKeyProperty else {
            guard key.hasPrefix("@"), let index = Int(key.dropFirst()), index >= 0 else { throw notFound }
            let all = vault.dynamicObjects(className)
            guard index < all.count else { throw notFound }
            return all[index]
        }
        let value: Any?
        switch pk.type {
        case .int: value = Int(key)
        case .string: value = key
        case .uuid: value = UUID(uuidString: key)
        case .objectId: value = try? ObjectId(string: key)
        default: value = nil
        }
        guard let value, let object = vault.dynamicObject(ofType: className, forPrimaryKey: value) else { throw notFound }
        return object
    }

    /// The class name and key of a linked object, for a link to its page (`nil`: embedded or unknown).
    private func address(of object: ObjectBase, vault: Vault) -> (className: String, key: String)? {
        let className = object.objectSchema.className
        guard let schema = vault.storedSchema[className], !schema.isEmbedded else { return nil }
        if let pk = schema.primaryKeyProperty { return (className, Self.keyText(object[pk.name])) }
        for (index, candidate) in vault.dynamicObjects(className).enumerated() where candidate.isSameObject(as: object) {
            return (className, "@\(index)")
        }
        return nil
    }

    private func backlinks(of object: DynamicObject, className: String, vault: Vault, token: String) -> String {
        var sections = ""
        for source in vault.storedSchema.objectSchema.sorted(by: { $0.className < $1.className }) where !source.isEmbedded {
            for property in source.properties where property.objectClassName == className && property.collectionKind != .map && property.originProperty == nil {
                let format = property.collectionKind == nil ? "\(property.name) == %@" : "ANY \(property.name) == %@"
                let label = "\(HTML.escape(source.className)).\(HTML.escape(property.name))"
                do {
                    let linking = try vault.dynamicObjects(source.className).filter(format, arguments: [object])
                    let count = linking.count
                    guard count > 0 else { continue }
                    var items: [String] = []
                    for index in 0..<min(count, Self.pageSize) {
                        items.append("<li>\(link(to: linking[index], vault: vault, token: token))</li>")
                    }
                    let more = count > Self.pageSize ? "<li class=\"muted\">… \(count - Self.pageSize) more</li>" : ""
                    sections += "<h3>\(label) (\(count))</h3><ul class=\"backlinks\">\(items.joined())\(more)</ul>\n"
                } catch {
                    sections += "<h3>\(label)</h3><p class=\"error\">\(HTML.escape(error.description))</p>\n"
                }
            }
        }
        return sections.isEmpty ? "<p class=\"muted\" id=\"no-backlinks\">No object links here.</p>" : sections
    }

    // MARK: Values

    private func link(to object: ObjectBase, vault: Vault, token: String) -> String {
        guard let address = address(of: object, vault: vault) else { return HTML.escape(summary(of: object)) }
        let href = HTML.escape(HTML.path(token: token, ["object", address.className, address.key]))
        return "<a href=\"\(href)\">\(HTML.escape(address.className)) \(HTML.escape(address.key))</a>"
    }

    /// A short summary of an (embedded) object: its first few scalar properties.
    private func summary(of object: ObjectBase) -> String {
        let className = object.objectSchema.className
        guard let schema = object.vault?.storedSchema[className] else { return className }
        let parts = schema.properties.filter { $0.collectionKind == nil && $0.type != .object }.prefix(Self.previewCount).map { property in
            "\(property.name): \(object[property.name].map(Self.scalarText) ?? "nil")"
        }
        return "\(className) {\(parts.joined(separator: ", "))}"
    }

    private func render(_ value: Any?, property: Property, vault: Vault, token: String, preview: Int = previewCount) -> String {
        guard let value, !(value is NSNull) else { return "<span class=\"muted\">nil</span>" }
        if let collection = value as? StudioCollection { return render(collection.studioContents, property: property, vault: vault, token: token, preview: preview) }
        if let object = value as? ObjectBase { return link(to: object, vault: vault, token: token) }
        if let array = value as? [Any] {
            let items = array.prefix(preview).map { element -> String in
                if let object = element as? ObjectBase { return link(to: object, vault: vault, token: token) }
                if element is NSNull { return "nil" }
                return HTML.escape(Self.scalarText(element))
            }
            let more = array.count > preview ? ", …" : ""
            return "<span class=\"collection\">\(array.count) item\(array.count == 1 ? "" : "s")</span>\(items.isEmpty ? "" : ": " + items.joined(separator: ", ") + more)"
        }
        if let dictionary = value as? [String: Any] {
            let items = dictionary.keys.sorted().prefix(preview).map { key -> String in
                let element = dictionary[key]
                let text: String
                if let object = element as? ObjectBase { text = link(to: object, vault: vault, token: token) } else { text = element is NSNull ? "nil" : HTML.escape(element.map(Self.scalarText) ?? "nil") }
                return "\(HTML.escape(key)): \(text)"
            }
            let more = dictionary.count > preview ? ", …" : ""
            return "<span class=\"collection\">\(dictionary.count) entr\(dictionary.count == 1 ? "y" : "ies")</span>\(items.isEmpty ? "" : ": " + items.joined(separator: ", ") + more)"
        }
        return HTML.escape(Self.scalarText(value))
    }

    static func typeText(_ property: Property) -> String {
        var text = (property.objectClassName ?? property.type.rawValue) + (property.isOptional ? "?" : "")
        if let kind = property.collectionKind { text = "\(kind.rawValue)<\(text)>" }
        return text
    }

    static func scalarText(_ value: Any) -> String {
        switch value {
        case let date as Date: return isoFormatter().string(from: date)
        case let data as Data: return "\(data.count) bytes"
        case let uuid as UUID: return uuid.uuidString
        case let object as ObjectBase: return (object as? DynamicObject)?.className ?? "object"
        default: return String(describing: value)
        }
    }

    /// A primary key value as the text in a URL.
    static func keyText(_ value: Any?) -> String {
        guard let value else { return "" }
        if let uuid = value as? UUID { return uuid.uuidString }
        return String(describing: value)
    }

    /// A value as an edit form shows it (and ``parse(_:for:className:)`` reads it back).
    static func editText(_ value: Any) -> String {
        if let date = value as? Date { return isoFormatter(fractional: true).string(from: date) }
        return scalarText(value)
    }

    static func isEditable(_ property: Property) -> Bool {
        guard property.collectionKind == nil, property.originProperty == nil, !property.isPrimaryKey else { return false }
        switch property.type {
        case .string, .int, .double, .float, .bool, .decimal, .date: return true
        default: return false
        }
    }

    /// The value `text` gives `property`: `nil` for empty text on an optional
    /// (non-string) property; a ``StudioError/badRequest(_:)`` naming the
    /// property for text that is not such a value.
    static func parse(_ text: String, for property: Property, className: String) throws -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if property.isOptional && (property.type == .string ? text.isEmpty : trimmed.isEmpty) { return nil }
        func bad(_ expected: String) -> StudioError {
            .badRequest("\(className).\(property.name) needs \(expected)")
        }
        switch property.type {
        case .string:
            return text
        case .int:
            guard let value = Int(trimmed) else { throw bad("an integer") }
            return value
        case .double:
            guard let value = Double(trimmed), value.isFinite || trimmed.lowercased().contains("inf") || trimmed.lowercased() == "nan" else { throw bad("a number") }
            return value
        case .float:
            guard let value = Float(trimmed) else { throw bad("a number") }
            return value
        case .bool:
            switch trimmed.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw bad("true or false")
            }
        case .decimal:
            guard !trimmed.isEmpty, let value = try? Decimal128(string: trimmed) else { throw bad("a decimal number") }
            return value
        case .date:
            guard let value = isoFormatter(fractional: true).date(from: trimmed) ?? isoFormatter().date(from: trimmed) else {
                throw bad("an ISO 8601 date such as 2024-05-01T12:00:00Z")
            }
            return value
        default:
            throw bad("a value this page can edit")
        }
    }

    static func isoFormatter(fractional: Bool = false) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }
}
