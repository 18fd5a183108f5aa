import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 exchange over a plain loopback socket, with exactly the request
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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw StudioTestError.message("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw StudioTestError.message("connect to 127.0.0.1:\(port) failed") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var fields = headers
        if !fields.keys.contains(where: { $0.lowercased() == "host" }) { fields["Host"] = "127.0.0.1:\(port)" }
        fields["Connection"] = "close"
        if !body.isEmpty || method == "POST" { fields["Content-Length"] = String(body.utf8.count) }
        var request = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        request += "\r\n" + body
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { break }   // the server may close early (a refused large body)
            offset += written
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { break }
            received += chunk[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
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
