import Foundation
import Testing
import VaultCore
import VaultKit

/// The checks a local web tool owes the machine it runs on, each tried the way an
/// attacker's page or a careless script would, over a plain socket.
@Suite("vault-studio refuses foreign hosts, origins and frames, and keeps its token out of addresses", .serialized)
struct StudioSecurityTests {
    private func form(_ fields: [String: String]) -> String {
        fields.map { "\(FormText.encode($0.key))=\(FormText.encode($0.value))" }.joined(separator: "&")
    }

    @Test("a Host other than the loopback names with the bound port is refused, token or not (DNS rebinding)")
    func foreignHost() throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let path = "/\(studio.token)/class/StudioPerson"
        for host in ["evil.example", "evil.example:\(studio.port)", "127.0.0.1", "127.0.0.1:\(studio.port + 1)", "localhost.evil.example:\(studio.port)", ""] {
            let response = try RawHTTP.send(port: studio.port, path: path, headers: ["Host": host])
            #expect(response.status == 403 || response.status == 400, "Host: \(host) → \(response.status)")
            #expect(!response.body.contains("Person 1"), "Host: \(host)")
        }
        for host in ["127.0.0.1:\(studio.port)", "localhost:\(studio.port)", "LOCALHOST:\(studio.port)", "[::1]:\(studio.port)"] {
            let response = try RawHTTP.send(port: studio.port, path: path, headers: ["Host": host])
            #expect(response.status == 200, "Host: \(host) → \(response.status)")
        }
    }

    @Test("a POST from another origin, a null origin, a cross-site fetch or as text/plain is refused and writes nothing")
    func foreignOrigins() throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let path = "/\(studio.token)/object/StudioPerson/3/set"
        let body = form(["property": "name", "value": "Hacked"])
        let formType = "application/x-www-form-urlencoded"
        let refused: [[String: String]] = [
            ["Origin": "http://evil.example", "Content-Type": formType],
            ["Origin": "null", "Content-Type": formType],
            ["Origin": "null", "Content-Type": "text/plain"],
            ["Origin": "http://127.0.0.1:\(studio.port + 1)", "Content-Type": formType],
            ["Origin": "https://127.0.0.1:\(studio.port)", "Content-Type": formType],
            ["Sec-Fetch-Site": "cross-site", "Content-Type": formType],
            ["Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:\(studio.port)", "Content-Type": formType],
            ["Content-Type": "text/plain"],
            ["Content-Type": "multipart/form-data; boundary=x"],
        ]
        for headers in refused {
            let response = try RawHTTP.send(port: studio.port, method: "POST", path: path, headers: headers, body: body)
            #expect(response.status == 403 || response.status == 415, "\(headers) → \(response.status)")
        }
        let delete = try RawHTTP.send(port: studio.port, method: "POST", path: "/\(studio.token)/object/StudioPerson/4/delete",
                                      headers: ["Origin": "http://evil.example", "Content-Type": formType])
        #expect(delete.status == 403)
        // The studio's own origin, as a browser sends it: written.
        let own = try RawHTTP.send(port: studio.port, method: "POST", path: path,
                                   headers: ["Origin": "http://127.0.0.1:\(studio.port)", "Sec-Fetch-Site": "same-origin", "Content-Type": formType],
                                   body: form(["property": "name", "value": "Renamed here"]))
        #expect(own.status == 303)
        studio.stop()
        #expect(try fixture.personName(3) == "Renamed here")
        #expect(try fixture.personName(4) == "Person 4")
    }

    @Test("every response forbids framing and scripts")
    func framingHeaders() throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        for path in ["/\(studio.token)/", "/", "/\(studio.token)/class/Nope"] {
            let response = try RawHTTP.send(port: studio.port, path: path)
            let policy = response.headers["content-security-policy"] ?? ""
            #expect(policy.contains("frame-ancestors 'none'"), "\(path): \(policy)")
            #expect(policy.contains("default-src 'none'"))
            #expect(response.headers["x-frame-options"] == "DENY", "\(path)")
        }
    }

    @Test("a browser that opens the printed URL is sent on without the token, with an HttpOnly SameSite=Strict cookie")
    func tokenLeavesTheAddress() throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let navigate = ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "none"]
        let first = try RawHTTP.send(port: studio.port, path: "/\(studio.token)/class/StudioPerson?sort=id&asc=0", headers: navigate)
        #expect(first.status == 303)
        #expect(first.headers["location"] == "/class/StudioPerson?sort=id&asc=0")
        let cookie = try #require(first.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        #expect(!cookie.contains(studio.token), "the cookie holds another secret than the printed token")
        let pair = String(cookie.split(separator: ";")[0])

        let withCookie = try RawHTTP.send(port: studio.port, path: "/class/StudioPerson?sort=id&asc=0", headers: ["Cookie": pair])
        #expect(withCookie.status == 200)
        #expect(withCookie.body.contains("60 objects"))
        #expect(!withCookie.body.contains(studio.token), "no page holds the token")
        #expect(try RawHTTP.send(port: studio.port, path: "/class/StudioPerson").status == 403)
        let name = pair.split(separator: "=")[0]
        #expect(try RawHTTP.send(port: studio.port, path: "/class/StudioPerson", headers: ["Cookie": "\(name)=\(String(repeating: "0", count: 32))"]).status == 403)
        #expect(try RawHTTP.send(port: studio.port, path: "/class/StudioPerson", headers: ["Cookie": "\(name)=\(studio.token)"]).status == 403)
        // A form posted with the cookie redirects to an address without the token.
        let posted = try RawHTTP.send(port: studio.port, method: "POST", path: "/object/StudioPerson/7/set",
                                      headers: ["Cookie": pair, "Origin": "http://127.0.0.1:\(studio.port)", "Content-Type": "application/x-www-form-urlencoded"],
                                      body: form(["property": "age", "value": "99"]))
        #expect(posted.status == 303 && posted.headers["location"] == "/object/StudioPerson/7")
    }

    @Test("a form body over 1 MiB is answered 413, and nothing is written")
    func largeBody() throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let body = form(["property": "name", "value": String(repeating: "x", count: (1 << 20) + 10)])
        let response = try RawHTTP.send(port: studio.port, method: "POST", path: "/\(studio.token)/object/StudioPerson/5/set",
                                        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(response.status == 413)
        #expect(!response.body.contains("NIO"))
        studio.stop()
        #expect(try fixture.personName(5) == "Person 5")
    }
}

/// Percent-encoding for form bodies (everything but RFC 3986's unreserved characters).
enum FormText {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }
}
