import Foundation
import SyncServerHarness

/// An HTTP/1.1 exchange over a plain loopback socket (``LoopbackConnection``), with exactly the request
/// line and headers given (a foreign `Host`, an `Origin`, a cookie): what
/// URLSession would not let a test send as it is. The connection is closed
/// after one response.
struct RawHTTPResponse {
    let status: Int
    /// Header fields by lower-case name.
    let headers: [String: String]
    let body: String
}

enum RawHTTP {
    /// Sends `method path` to 127.0.0.1:`port` with `headers` (a `Host` of
    /// 127.0.0.1:`port` unless one is given) and `body`, and reads the whole response.
    static func send(port: Int, method: String = "GET", path: String, headers: [String: String] = [:], body: String = "") throws -> RawHTTPResponse {
        let connection = try LoopbackConnection(port: port)
        defer { connection.close() }
        var fields = headers
        if !fields.keys.contains(where: { $0.lowercased() == "host" }) { fields["Host"] = "127.0.0.1:\(port)" }
        fields["Connection"] = "close"
        if !body.isEmpty || method == "POST" { fields["Content-Length"] = String(body.utf8.count) }
        var request = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        request += "\r\n" + body
        connection.send(request)   // the server may close early (a refused large body)
        let text = connection.read(timeout: .seconds(30)).text
        guard let headerEnd = text.range(of: "\r\n\r\n") else { throw StudioTestError.message("no HTTP response: \(text.prefix(200))") }
        let lines = text[..<headerEnd.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw StudioTestError.message("bad status line \(lines.first ?? "")") }
        var responseHeaders: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            responseHeaders[name] = responseHeaders[name].map { $0 + ", " + value } ?? value
        }
        var responseBody = String(text[headerEnd.upperBound...])
        if responseHeaders["transfer-encoding"]?.lowercased() == "chunked" { responseBody = dechunk(responseBody) }
        return RawHTTPResponse(status: status, headers: responseHeaders, body: responseBody)
    }

    /// A chunked body's data (sizes in hexadecimal, each chunk followed by CRLF).
    private static func dechunk(_ text: String) -> String {
        var bytes = Array(text.utf8)[...]
        var result: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")) {
            let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            let start = lineEnd + 2
            guard size > 0, start + size <= bytes.endIndex else { break }
            result += bytes[start..<(start + size)]
            bytes = bytes[(start + size + 2)...]
        }
        return String(decoding: result, as: UTF8.self)
    }
}

extension StudioProcess {
    /// The port of the printed URL.
    var port: Int {
        let afterScheme = baseURL.dropFirst("http://127.0.0.1:".count)
        return Int(afterScheme.prefix { $0.isNumber }) ?? 0
    }

    /// The token of the printed URL.
    var token: String {
        String(baseURL.split(separator: "/").last ?? "")
    }
}
