import Foundation

/// HTML building blocks: every value that reaches a page goes through ``escape(_:)``.
enum HTML {
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

    /// A whole page: title, a small stylesheet, and the body's HTML (already escaped).
    static func page(title: String, token: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) — Vault Studio</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
        a{color:#0b5cad}
        table{border-collapse:collapse;margin:.5em 0}
        th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#f2f2f2}
        .muted{color:#888}
        .error{background:#fde8e8;border:1px solid #e0a0a0;padding:6px 10px;margin:.5em 0}
        nav{margin-bottom:1em}
        form.inline{display:inline;margin:0}
        code{background:#f5f5f5;padding:0 3px}
        </style></head><body>
        <nav><a href="\(escape(path(token: token, [])))">Classes</a> · <a href="\(escape(path(token: token, ["schema"])))">Schema</a> · <a href="\(escape(path(token: token, ["export.json"])))">Export JSON</a></nav>
        <h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    /// `/TOKEN/segment/segment…`, each segment percent-encoded (unescaped: pass through ``escape(_:)`` for HTML).
    static func path(token: String, _ segments: [String], query: [(String, String)] = []) -> String {
        var text = "/" + token + "/" + segments.map(percentEncode).joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
        }
        return text
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
