/// What the studio answers: a status, a content type, a body and extra headers.
public struct StudioResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body.
    public var body: String
    /// Further headers (for example `Location` or `Content-Disposition`).
    public var headers: [String: String]

    /// A response.
    public init(status: Int, contentType: String = "text/html; charset=utf-8", body: String, headers: [String: String] = [:]) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    static func html(_ status: Int = 200, title: String, token: String, body: String) -> StudioResponse {
        StudioResponse(status: status, body: HTML.page(title: title, token: token, body: body))
    }

    static func message(_ status: Int, title: String, text: String, token: String?) -> StudioResponse {
        let body = "<p id=\"message\">\(HTML.escape(text))</p>"
        if let token { return html(status, title: title, token: token, body: body) }
        // Without the token, no link into the studio.
        return StudioResponse(status: status, body: "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(HTML.escape(title))</title></head><body><h1>\(HTML.escape(title))</h1>\(body)</body></html>")
    }

    static func redirect(to location: String) -> StudioResponse {
        StudioResponse(status: 303, body: "<a href=\"\(HTML.escape(location))\">Continue</a>", headers: ["Location": location])
    }
}
