import Foundation

/// HTML building blocks: every value that reaches a page goes through ``escape(_:)``,
/// and every name or value a vault holds through ``user(_:limit:)``.
enum HTML {
    /// Characters of a value shown in a table cell or a list before it is cut
    /// (the object's own page shows the whole value).
    static let listedCharacters = 200

    /// `text` with the five characters that matter in HTML text and attributes escaped.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Text from the vault (a class or property name, a value), escaped and isolated
    /// with `<bdi>` so that a right-to-left mark or an override (U+202E) inside it
    /// cannot reorder the page around it; cut after `limit` characters with "…".
    static func user(_ text: String, limit: Int? = nil) -> String {
        var shown = text
        var cut = ""
        if let limit, text.count > limit {
            shown = String(text.prefix(limit))
            cut = "<span class=\"muted cut\" title=\"\(text.count) characters; the object's page shows all of it\">…</span>"
        }
        return "<bdi>\(escape(shown))</bdi>\(cut)"
    }

    /// A whole page: title, a small stylesheet, and the body's HTML (already escaped).
    /// `heading` is HTML (already escaped); the title the browser shows is `title`.
    static func page(title: String, heading: String? = nil, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title.filter { !isBidiControl($0) })) — Vault Studio</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
        a{color:#0b5cad}
        table{border-collapse:collapse;margin:.5em 0}
        th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#f2f2f2}
        bdi{unicode-bidi:isolate}
        .muted{color:#888}
        .error{background:#fde8e8;border:1px solid #e0a0a0;padding:6px 10px;margin:.5em 0}
        nav{margin-bottom:1em}
        form.inline{display:inline;margin:0}
        code{background:#f5f5f5;padding:0 3px}
        </style></head><body>
        <nav><a href="\(escape(path([])))">Classes</a> · <a href="\(escape(path(["schema"])))">Schema</a> · <a href="\(escape(path(["export.json"])))">Export JSON</a></nav>
        <h1>\(heading ?? user(title))</h1>
        \(body)
        </body></html>
        """
    }

    /// Characters that change the direction of the text after them (kept out of the window title).
    private static func isBidiControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) || $0.value == 0x200E || $0.value == 0x200F }
    }

    /// `/segment/segment…?query`: the address of a page, each segment spelled by
    /// ``encodeSegment(_:)`` (unescaped: pass it through ``escape(_:)`` for HTML).
    /// Pages link without the token: after the first page, the browser proves
    /// itself with the studio's cookie (see ``StudioSession``).
    static func path(_ segments: [String], query: [(String, String)] = []) -> String {
        var text = "/" + segments.map(encodeSegment).joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
        }
        return text
    }

    /// A class name or key as one path segment. Browsers resolve the segments `.`
    /// and `..` (also spelled `%2E`) before a request is sent, so a name made only
    /// of one or two dots, or one starting with `~`, gets a leading `~`, which
    /// ``decodeSegment(_:)`` removes; then it is percent-encoded.
    static func encodeSegment(_ name: String) -> String {
        let needsMark = name == "." || name == ".." || name.hasPrefix("~")
        return (needsMark ? "~" + name : name).addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? ""
    }

    /// What a segment keeps as it is: the unreserved characters and `@` (RFC 3986's `pchar`
    /// allows it; row-id keys read `@12`).
    private static let segmentCharacters: CharacterSet = unreserved.union(CharacterSet(charactersIn: "@"))

    /// The name a percent-decoded path segment spells (see ``encodeSegment(_:)``).
    static func decodeSegment(_ segment: String) -> String {
        segment.hasPrefix("~") ? String(segment.dropFirst()) : segment
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

/// `application/x-www-form-urlencoded` text (a query string or a form body) as pairs.
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first else { continue }
            let name = decodeComponent(String(rawName))
            let value = parts.count > 1 ? decodeComponent(String(parts[1])) : ""
            if let name, let value, result[name] == nil { result[name] = value }
        }
        return result
    }

    /// `+` as a space, then percent-decoding; `nil` for malformed escapes.
    static func decodeComponent(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
