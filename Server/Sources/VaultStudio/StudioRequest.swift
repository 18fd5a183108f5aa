import Foundation

/// One request as the router sees it, independent of the HTTP server (so tests can make one).
public struct StudioRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request target's path, still percent-encoded.
    public var rawPath: String
    /// The query string, if any.
    public var query: String?
    /// Header fields by lower-case name (a repeated field: its values joined by ", ").
    public var headers: [String: String]
    /// Reads the body (a form): throws ``StudioError/payloadTooLarge`` past ``StudioServer/maximumBodySize``.
    public var body: @Sendable () async throws -> String

    /// A request.
    public init(method: String, rawPath: String, query: String? = nil, headers: [String: String] = [:],
                body: @escaping @Sendable () async throws -> String = { "" }) {
        self.method = method
        self.rawPath = rawPath
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, second in first + ", " + second })
        self.body = body
    }

    /// A header's value by name (any letter case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The run's secrets and where it listens: the token in the first URL, the
/// session cookie a browser gets for it, and the port (known once bound).
///
/// The token is printed once, in the URL the person opens. A browser that
/// opens it is sent on at once to the same page without the token, with an
/// `HttpOnly`, `SameSite=Strict` cookie holding a second secret: from then on
/// the address bar, the history and any screenshot show addresses without a
/// secret, a script cannot read the cookie, and another site's page cannot
/// make the browser send it. Programs (curl, tests) may keep sending the token
/// in the path instead.
public final class StudioSession: @unchecked Sendable {
    /// The 128-bit token of the printed URL.
    public let token: String
    /// The 128-bit secret of the session cookie.
    let cookieSecret: String
    private let lock = NSLock()
    private var boundPort: Int?

    /// A session with fresh secrets.
    public init(token: String = StudioToken.generate()) {
        self.token = token
        self.cookieSecret = StudioToken.generate()
    }

    /// The port the server listens on (set once it is bound).
    public var port: Int? {
        get { lock.withLock { boundPort } }
        set { lock.withLock { boundPort = newValue } }
    }

    /// The cookie's name: one per port, since browsers share cookies between the ports of a host.
    var cookieName: String { "vault_studio_\(port ?? 0)" }

    /// The `Set-Cookie` value for a browser that showed the token.
    var setCookie: String { "\(cookieName)=\(cookieSecret); Path=/; HttpOnly; SameSite=Strict" }

    /// Whether a `Cookie` header carries this session's cookie.
    func hasSessionCookie(_ header: String?) -> Bool {
        guard let header else { return false }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName else { continue }
            if StudioToken.matches(Substring(parts[1].trimmingCharacters(in: .whitespaces)), cookieSecret) { return true }
        }
        return false
    }

    /// The `Host` values the studio answers to: the loopback names with the bound port.
    var allowedHosts: Set<String> {
        guard let port else { return [] }
        return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }
}

/// The checks every request passes before the router looks at its path,
/// each against one attack on a web server that only this machine should reach:
///
/// 1. `Host` must name the loopback address and the bound port: a page on
///    another site whose name an attacker points at 127.0.0.1 (DNS rebinding)
///    sends its own name as `Host`, and is refused.
/// 2. A request that changes something (any method but GET and HEAD) must come
///    from the studio's own pages: `Sec-Fetch-Site`, when sent, must be
///    `same-origin`, and `Origin`, when sent, must be the studio's own origin
///    (`null`, a sandboxed or `data:` page, is refused). Browsers send both on
///    every POST; programs that send neither prove themselves with the token.
/// 3. A form must be `application/x-www-form-urlencoded` (a cross-site
///    `text/plain` post is refused even before its origin is looked at).
/// 4. Pages may not be framed (`frame-ancestors 'none'`, `X-Frame-Options`),
///    set by the server on every response.
enum StudioRequestGuard {
    /// `nil` when the request may go on, or the refusal to send.
    static func refusal(of request: StudioRequest, session: StudioSession) -> StudioResponse? {
        let allowed = session.allowedHosts
        // (1)
        guard let host = request.header("host")?.lowercased(), allowed.contains(host) else {
            return .message(403, title: "Forbidden", text: "This studio answers only to requests for \(allowed.sorted().joined(separator: ", ")).", token: nil)
        }
        guard request.method != "GET" && request.method != "HEAD" else { return nil }
        // (2)
        if let site = request.header("sec-fetch-site"), site.lowercased() != "same-origin" {
            return .message(403, title: "Forbidden", text: "Changes are accepted only from the studio's own pages.", token: nil)
        }
        if let origin = request.header("origin") {
            let lowered = origin.lowercased()
            guard lowered.hasPrefix("http://"), allowed.contains(String(lowered.dropFirst("http://".count))) else {
                return .message(403, title: "Forbidden", text: "Changes are accepted only from the studio's own pages.", token: nil)
            }
        }
        // (3)
        let type = request.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            return .message(415, title: "Unsupported form", text: "Forms are sent as application/x-www-form-urlencoded.", token: nil)
        }
        return nil
    }
}
