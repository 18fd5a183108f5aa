import Foundation

/// Maps a request to a page, independent of the HTTP server (so tests can call it directly).
///
/// A request proves itself either with the token as its path's first segment
/// (`/TOKEN/class/Person`: the printed URL, and programs) or with the session
/// cookie (`/class/Person`: a browser after its first page); see ``StudioSession``.
public struct StudioRouter: Sendable {
    /// The run's secrets and port.
    public let session: StudioSession
    /// The vault the pages show.
    public let store: StudioStore

    /// The per-run token of the printed URL.
    public var token: String { session.token }

    /// A router for `store`, guarded by `session`.
    public init(session: StudioSession, store: StudioStore) {
        self.session = session
        self.store = store
    }

    /// How a request proved itself.
    private enum Credential {
        /// The token was the path's first segment; `prefix` is `/TOKEN`.
        case token(prefix: String)
        /// The session cookie.
        case cookie
    }

    /// The response to one request.
    public func respond(to request: StudioRequest) async -> StudioResponse {
        if let refusal = StudioRequestGuard.refusal(of: request, session: session) { return refusal }

        // The credential first: nothing else is looked at (or changed) without it.
        guard request.rawPath.hasPrefix("/") else { return forbidden() }
        var rawSegments = request.rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let credential: Credential
        if rawSegments.count >= 2, StudioToken.matches(Substring(rawSegments[0]), token) {
            credential = .token(prefix: "/" + token)
            rawSegments.removeFirst()
        } else if session.hasSessionCookie(request.header("cookie")) {
            credential = .cookie
        } else {
            return forbidden()
        }

        var segments: [String] = []
        for raw in rawSegments {
            guard let decoded = raw.removingPercentEncoding else { return notFound("Malformed path.") }
            segments.append(HTML.decodeSegment(decoded))
        }
        if segments.last == "" { segments.removeLast() }

        // A browser that opened the printed URL: on to the same page without the token, with the cookie.
        if case .token = credential, request.method == "GET", request.header("sec-fetch-mode")?.lowercased() == "navigate" {
            let query = request.query.map { $0.isEmpty ? "" : "?" + $0 } ?? ""
            let location = "/" + rawSegments.joined(separator: "/") + query
            return .redirect(to: location, headers: ["Set-Cookie": session.setCookie])
        }
        let prefix: String
        switch credential {
        case .token(let tokenPrefix): prefix = tokenPrefix
        case .cookie: prefix = ""
        }
        let parameters = FormDecoding.decode(request.query ?? "")

        do {
            switch (request.method, segments.count) {
            case ("GET", 0):
                return try await store.indexPage()
            case ("GET", 1) where segments[0] == "schema":
                return try await store.schemaPage()
            case ("GET", 1) where segments[0] == "export.json":
                return try await store.exportJSON()
            case ("GET", 2) where segments[0] == "class":
                let page = parameters["page"].flatMap { Int($0) } ?? 1
                return try await store.classPage(className: segments[1], page: page, sort: parameters["sort"],
                                                 ascending: parameters["asc"] != "0", query: parameters["query"])
            case ("GET", 3) where segments[0] == "object":
                return try await store.objectPage(className: segments[1], key: segments[2])
            case ("POST", 4) where segments[0] == "object" && segments[3] == "set":
                guard store.allowsWrites else { return forbidden("This studio is read-only.") }
                let form = FormDecoding.decode(try await request.body())
                guard let property = form["property"], let value = form["value"] else {
                    return .message(400, title: "Bad request", text: "The form needs the fields property and value.", token: token)
                }
                try await store.setValue(className: segments[1], key: segments[2], property: property, text: value,
                                         expected: form["expected"], version: form["version"])
                return .redirect(to: prefix + HTML.path(["object", segments[1], segments[2]]))
            case ("POST", 4) where segments[0] == "object" && segments[3] == "delete":
                guard store.allowsWrites else { return forbidden("This studio is read-only.") }
                let form = FormDecoding.decode(try await request.body())
                try await store.deleteObject(className: segments[1], key: segments[2], version: form["version"])
                return .redirect(to: prefix + HTML.path(["class", segments[1]]))
            case ("GET", _), ("POST", _):
                return notFound("There is no page at this address.")
            default:
                return .message(405, title: "Method not allowed", text: "\(request.method) is not used here.", token: token)
            }
        } catch let error as StudioError {
            switch error {
            case .notFound(let text): return notFound(text)
            case .badRequest(let text): return .message(400, title: "Bad request", text: text, token: token)
            case .forbidden(let text): return forbidden(text)
            case .conflict(let text): return .message(409, title: "Changed meanwhile", text: text, token: token)
            case .payloadTooLarge: return .message(413, title: "Too large", text: "A form may hold at most \(StudioServer.maximumBodySize) bytes.", token: token)
            }
        } catch {
            return .message(500, title: "Error", text: String(describing: error), token: token)
        }
    }

    private func forbidden(_ text: String = "This address needs the studio's token.") -> StudioResponse {
        .message(403, title: "Forbidden", text: text, token: nil)
    }

    private func notFound(_ text: String) -> StudioResponse {
        .message(404, title: "Not found", text: text, token: token)
    }
}
