import Foundation

/// Maps a request (method, raw path, query string, form body) to a page,
/// independent of the HTTP server (so tests can call it directly).
public struct StudioRouter: Sendable {
    /// The per-run token every path must start with.
    public let token: String
    /// The vault the pages show.
    public let store: StudioStore

    /// A router for `store`, guarded by `token`.
    public init(token: String, store: StudioStore) {
        self.token = token
        self.store = store
    }

    /// The response to one request. `rawPath` is the request target's path, still percent-encoded.
    public func respond(method: String, rawPath: String, query: String?, body: () async throws -> String) async -> StudioResponse {
        // The token first: nothing else is looked at (or changed) without it.
        guard rawPath.hasPrefix("/") else { return forbidden() }
        let afterSlash = rawPath.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { return forbidden() }
        guard StudioToken.matches(afterSlash[..<slash], token) else { return forbidden() }

        var segments: [String] = []
        for raw in afterSlash[afterSlash.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = String(raw).removingPercentEncoding else { return notFound("Malformed path.") }
            segments.append(decoded)
        }
        if segments.last == "" { segments.removeLast() }
        let parameters = FormDecoding.decode(query ?? "")

        do {
            switch (method, segments.count) {
            case ("GET", 0):
                return try await store.indexPage(token: token)
            case ("GET", 1) where segments[0] == "schema":
                return try await store.schemaPage(token: token)
            case ("GET", 1) where segments[0] == "export.json":
                return try await store.exportJSON()
            case ("GET", 2) where segments[0] == "class":
                let page = parameters["page"].flatMap { Int($0) } ?? 1
                return try await store.classPage(token: token, className: segments[1], page: page, sort: parameters["sort"],
                                                 ascending: parameters["asc"] != "0", query: parameters["query"])
            case ("GET", 3) where segments[0] == "object":
                return try await store.objectPage(token: token, className: segments[1], key: segments[2])
            case ("POST", 4) where segments[0] == "object" && segments[3] == "set":
                guard store.allowsWrites else { return forbidden("This studio is read-only.") }
                let form = FormDecoding.decode(try await body())
                guard let property = form["property"], let value = form["value"] else {
                    return .message(400, title: "Bad request", text: "The form needs the fields property and value.", token: token)
                }
                try await store.setValue(className: segments[1], key: segments[2], property: property, text: value)
                return .redirect(to: HTML.path(token: token, ["object", segments[1], segments[2]]))
            case ("POST", 4) where segments[0] == "object" && segments[3] == "delete":
                guard store.allowsWrites else { return forbidden("This studio is read-only.") }
                try await store.deleteObject(className: segments[1], key: segments[2])
                return .redirect(to: HTML.path(token: token, ["class", segments[1]]))
            case ("GET", _), ("POST", _):
                return notFound("There is no page at this address.")
            default:
                return .message(405, title: "Method not allowed", text: "\(method) is not used here.", token: token)
            }
        } catch let error as StudioError {
            switch error {
            case .notFound(let text): return notFound(text)
            case .badRequest(let text): return .message(400, title: "Bad request", text: text, token: token)
            case .forbidden(let text): return forbidden(text)
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
