/// What the studio answers: a status, a content type, a body and extra headers.
public struct StudioResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body.
    public var body: String
    /// Further headers (for example `Location`, `Set-Cookie` or `Content-Disposition`).
    public var headers: [String: String]

    /// A response.
    public init(status: Int, contentType: String = "text/html; charset=utf-8", body: String, headers: [String: String] = [:]) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    static func html(_ status: Int = 200, title: String, heading: String? = nil, body: String) -> StudioResponse {
        StudioResponse(status: status, body: HTML.page(title: title, heading: heading, body: body))
    }

    /// A page with one message. `token` is `nil` for a request that proved nothing
    /// (no token, no cookie): its page links nowhere into the studio.
    static func message(_ status: Int, title: String, text: String, token: String?) -> StudioResponse {
        let body = "<p id=\"message\">\(HTML.escape(text))</p>"
        if token != nil { return html(status, title: title, body: body) }
        return StudioResponse(status: status, body: "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(HTML.escape(title))</title></head><body><h1>\(HTML.escape(title))</h1>\(body)</body></html>")
    }

    static func redirect(to location: String, headers: [String: String] = [:]) -> StudioResponse {
        StudioResponse(status: 303, body: "<a href=\"\(HTML.escape(location))\">Continue</a>",
                       headers: headers.merging(["Location": location]) { _, new in new })
    }
}
