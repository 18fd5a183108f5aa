import Foundation
@_spi(Interchange) import VaultKit

// `/class/NAME`: a page of a class's objects, sorted and filtered.
extension StudioStore {
    func classPage(className: String, page: Int, sort: String?, ascending: Bool, query: String?) throws -> StudioResponse {
        let vault = try vault()
        let schema = try topLevelSchema(className, in: vault)
        var results = vault.dynamicObjects(className)
        var problems: [String] = []
        let queryText = query?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var queryFailed = false
        if !queryText.isEmpty {
            do {
                results = try results.filter(queryText, arguments: [])
            } catch {
                problems.append(error.description)
                queryFailed = true
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
        // A query that does not parse matches nothing: never the unfiltered objects as if they had matched.
        let count = queryFailed ? 0 : results.count
        let pageCount = max(1, (count + Self.pageSize - 1) / Self.pageSize)
        let page = min(max(page, 1), pageCount)
        let start = (page - 1) * Self.pageSize
        let end = min(start + Self.pageSize, count)

        let columns = schema.properties
        func pageLink(_ number: Int, sortKey: String?, ascending: Bool) -> String {
            var query: [(String, String)] = [("page", String(number))]
            if let sortKey { query += [("sort", sortKey), ("asc", ascending ? "1" : "0")] }
            if !queryText.isEmpty { query.append(("query", queryText)) }
            return HTML.escape(HTML.path(["class", className], query: query))
        }

        var body = """
        <form id="query-form" method="GET" action="\(HTML.escape(HTML.path(["class", className])))">
        <input type="text" name="query" size="60" dir="auto" placeholder="age &gt; 30 AND name BEGINSWITH 'A'" value="\(HTML.escape(queryText))">
        \(sortKey.map { "<input type=\"hidden\" name=\"sort\" value=\"\(HTML.escape($0))\"><input type=\"hidden\" name=\"asc\" value=\"\(ascending ? "1" : "0")\">" } ?? "")
        <button type="submit">Query</button></form>

        """
        if !problems.isEmpty {
            body += "<div id=\"query-error\" class=\"error\">\(problems.map { HTML.user($0) }.joined(separator: "<br>"))</div>\n"
        }
        if queryFailed {
            body += "<p id=\"summary\">No objects shown: the query has an error.</p>\n"
        } else {
            body += "<p id=\"summary\">\(count) object\(count == 1 ? "" : "s")\(queryText.isEmpty ? "" : " matching the query") · page \(page) of \(pageCount)</p>\n"
        }
        body += "<table id=\"objects\"><tr><th></th>"
        for property in columns {
            let nextAscending = sortKey == property.name ? !ascending : true
            let arrow = sortKey == property.name ? (ascending ? " ▲" : " ▼") : ""
            if property.collectionKind == nil && property.type != .object {
                body += "<th><a href=\"\(pageLink(1, sortKey: property.name, ascending: nextAscending))\">\(HTML.user(property.name))</a>\(arrow)</th>"
            } else {
                body += "<th>\(HTML.user(property.name))</th>"
            }
        }
        body += "</tr>\n"
        if start < end {
            for position in start..<end {
                let object = results[position]
                let link = HTML.escape(HTML.path(["object", className, Self.key(of: object, schema: schema)]))
                body += "<tr><td><a class=\"object-link\" href=\"\(link)\">open</a></td>"
                for property in columns {
                    body += "<td>\(render(object[property.name], property: property, vault: vault, limit: HTML.listedCharacters))</td>"
                }
                body += "</tr>\n"
            }
        }
        body += "</table>\n<p class=\"pager\">"
        body += page > 1 ? "<a id=\"previous\" href=\"\(pageLink(page - 1, sortKey: sortKey, ascending: ascending))\">Previous</a>" : "<span class=\"muted\">Previous</span>"
        body += " · "
        body += page < pageCount ? "<a id=\"next\" href=\"\(pageLink(page + 1, sortKey: sortKey, ascending: ascending))\">Next</a>" : "<span class=\"muted\">Next</span>"
        body += "</p>\n"
        return .html(title: className, body: body)
    }
}
