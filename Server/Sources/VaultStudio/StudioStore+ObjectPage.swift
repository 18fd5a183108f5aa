import Foundation
@_spi(Interchange) import VaultKit

// `/object/NAME/KEY`: one object, its backlinks, and (when writable) its forms;
// and how a value of any kind is shown.
extension StudioStore {
    func objectPage(className: String, key: String) throws -> StudioResponse {
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        let object = try resolve(className: className, key: key, schema: schema, vault: vault)
        let selfPath = HTML.path(["object", className, key])
        let version = "<input type=\"hidden\" name=\"version\" value=\"\(Self.version(of: object, schema: schema))\">"
        var body = "<p><a href=\"\(HTML.escape(HTML.path(["class", className])))\">All \(HTML.user(className)) objects</a></p>\n"
        body += "<table id=\"properties\"><tr><th>Property</th><th>Type</th><th>Value</th>\(allowsWrites ? "<th>Edit</th>" : "")</tr>\n"
        for property in schema.properties {
            let value = object[property.name]
            body += "<tr><td>\(HTML.user(property.name))\(property.isPrimaryKey ? " <span class=\"muted\">(primary key)</span>" : "")</td>"
            body += "<td>\(HTML.user(Self.typeText(property)))</td>"
            body += "<td id=\"value-\(HTML.escape(HTML.percentEncode(property.name)))\">\(render(value, property: property, vault: vault, preview: 20))</td>"
            if allowsWrites {
                if StudioValueCodec.isEditable(property), let current = StudioValueCodec.editText(value, for: property) {
                    // `expected` is the value the edit is made against (see StudioStore.setValue).
                    body += """
                    <td><form class="inline edit" method="POST" action="\(HTML.escape(selfPath + "/set"))">\
                    <input type="hidden" name="property" value="\(HTML.escape(property.name))">\
                    <input type="hidden" name="expected" value="\(HTML.escape(current))">\(version)\
                    <input type="text" name="value" dir="auto" value="\(HTML.escape(current))" data-property="\(HTML.escape(property.name))">\
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
            body += "<form id=\"delete-form\" method=\"POST\" action=\"\(HTML.escape(selfPath + "/delete"))\">\(version)<button type=\"submit\">Delete this object</button></form>\n"
        }
        body += "<h2>Linked from</h2>\n" + backlinks(of: object, className: className, vault: vault)
        return .html(title: "\(className) \(key)", heading: "\(HTML.user(className)) \(HTML.user(key))", body: body)
    }

    /// The objects linking here, a section per link property of every class: each
    /// found through the property itself (never through query text, so a name
    /// holding operators or dots is just a name).
    private func backlinks(of object: DynamicObject, className: String, vault: Vault) -> String {
        var sections = ""
        for source in vault.storedSchema.objectSchema.sorted(by: { $0.className < $1.className }) where !source.isEmbedded {
            for property in source.properties where property.objectClassName == className && property.collectionKind != .map && property.originProperty == nil {
                let label = "\(HTML.user(source.className)).\(HTML.user(property.name))"
                do {
                    let linking = try vault.dynamicObjects(source.className).filter(linkingTo: object, through: property.name)
                    let count = linking.count
                    guard count > 0 else { continue }
                    var items: [String] = []
                    for index in 0..<min(count, Self.pageSize) {
                        items.append("<li>\(link(to: linking[index], vault: vault))</li>")
                    }
                    let more = count > Self.pageSize ? "<li class=\"muted\">… \(count - Self.pageSize) more</li>" : ""
                    sections += "<h3>\(label) (\(count))</h3><ul class=\"backlinks\">\(items.joined())\(more)</ul>\n"
                } catch {
                    sections += "<h3>\(label)</h3><p class=\"error\">\(HTML.user(error.description))</p>\n"
                }
            }
        }
        return sections.isEmpty ? "<p class=\"muted\" id=\"no-backlinks\">No object links here.</p>" : sections
    }

    // MARK: Values

    func link(to object: ObjectBase, vault: Vault) -> String {
        guard let address = address(of: object, vault: vault) else { return HTML.user(summary(of: object)) }
        let href = HTML.escape(HTML.path(["object", address.className, address.key]))
        return "<a href=\"\(href)\">\(HTML.user(address.className)) \(HTML.user(address.key))</a>"
    }

    /// A short summary of an (embedded) object: its first few scalar properties.
    private func summary(of object: ObjectBase) -> String {
        let className = object.objectSchema.className
        guard let schema = object.vault?.storedSchema[className] else { return className }
        let parts = schema.properties.filter { $0.collectionKind == nil && $0.type != .object }.prefix(Self.previewCount).map { property in
            "\(property.name): \(StudioValueCodec.unwrap(object[property.name]).map(StudioValueCodec.scalarText) ?? "nil")"
        }
        return "\(className) {\(parts.joined(separator: ", "))}"
    }

    /// A value as a page shows it; text cut after `limit` characters (class pages) or whole (`nil`).
    func render(_ value: Any?, property: Property, vault: Vault, preview: Int = previewCount, limit: Int? = nil) -> String {
        guard let value = StudioValueCodec.unwrap(value) else { return "<span class=\"muted\">nil</span>" }
        if let collection = value as? StudioCollection {
            return render(collection.studioContents, property: property, vault: vault, preview: preview, limit: limit)
        }
        if let object = value as? ObjectBase { return link(to: object, vault: vault) }
        if property.type == .mixed, property.collectionKind == nil, let mixed = StudioValueCodec.mixedValue(payload: value) {
            if case .object(let object) = mixed { return link(to: object, vault: vault) }
            guard let text = StudioValueCodec.mixedText(mixed) else { return "<span class=\"muted\">\(StudioValueCodec.mixedKind(mixed))</span>" }
            return HTML.user(text, limit: limit)
        }
        if let array = value as? [Any] {
            let items = array.prefix(preview).map { element -> String in
                guard let element = StudioValueCodec.unwrap(element) else { return "nil" }
                if let object = element as? ObjectBase { return link(to: object, vault: vault) }
                return HTML.user(StudioValueCodec.scalarText(element), limit: limit ?? HTML.listedCharacters)
            }
            let more = array.count > preview ? ", …" : ""
            return "<span class=\"collection\">\(array.count) item\(array.count == 1 ? "" : "s")</span>\(items.isEmpty ? "" : ": " + items.joined(separator: ", ") + more)"
        }
        if let dictionary = value as? [String: Any] {
            let items = dictionary.keys.sorted().prefix(preview).map { key -> String in
                let text: String
                if let element = StudioValueCodec.unwrap(dictionary[key]) {
                    if let object = element as? ObjectBase { text = link(to: object, vault: vault) } else {
                        text = HTML.user(StudioValueCodec.scalarText(element), limit: limit ?? HTML.listedCharacters)
                    }
                } else {
                    text = "nil"
                }
                return "\(HTML.user(key)): \(text)"
            }
            let more = dictionary.count > preview ? ", …" : ""
            return "<span class=\"collection\">\(dictionary.count) entr\(dictionary.count == 1 ? "y" : "ies")</span>\(items.isEmpty ? "" : ": " + items.joined(separator: ", ") + more)"
        }
        if let data = value as? Data, limit != nil { return "\(data.count) bytes" }
        return HTML.user(StudioValueCodec.scalarText(value), limit: limit)
    }

    static func typeText(_ property: Property) -> String {
        var text = (property.objectClassName ?? property.type.rawValue) + (property.isOptional ? "?" : "")
        if let kind = property.collectionKind { text = "\(kind.rawValue)<\(text)>" }
        return text
    }
}
