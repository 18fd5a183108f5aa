import Foundation
import Testing
import VaultCore
@testable import VaultStudio

private func encoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
}

@Suite("vault-studio over HTTP (the built executable on 127.0.0.1)", .serialized)
struct StudioHTTPTests {
    @Test("the token guards every path; pages list classes, query, link and edit; a bad value is a 400")
    func browseAndEdit() async throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let base = studio.baseURL
        let match = base.wholeMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/([0-9a-f]{32})\//)
        let parts = try #require(match, "first line \(base)")
        let root = "http://127.0.0.1:\(parts.1)"
        let token = String(parts.2)

        // Listening on 127.0.0.1 only (Linux: the kernel's socket tables).
        if let port = Int(parts.1), FileManager.default.fileExists(atPath: "/proc/net/tcp") {
            let portHex = String(format: ":%04X", port)
            var listeners: [String] = []
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
                for line in text.split(separator: "\n").dropFirst() {
                    let fields = line.split(separator: " ")
                    guard fields.count > 3, fields[1].hasSuffix(portHex), fields[3] == "0A" else { continue }
                    listeners.append(String(fields[1]))
                }
            }
            #expect(listeners == ["0100007F" + portHex])
        }

        // 403 without the token, with a wrong one, and with the token but no slash after it.
        for path in ["/", "/class/StudioPerson", "/\(String(repeating: "0", count: 32))/", "/\(token)", "/\(token.dropLast())/", "/x\(token)/"] {
            let result = try await http(root + path)
            #expect(result.status == 403, "\(path)")
            #expect(!result.body.contains(token))
        }
        let wrongPost = try await http(root + "/\(String(repeating: "a", count: 32))/object/StudioPerson/1/delete", method: "POST", form: [:])
        #expect(wrongPost.status == 403)

        // The class list with counts.
        let index = try await http(base)
        #expect(index.status == 200)
        #expect(index.body.contains(">StudioPerson</bdi></a></td><td class=\"count\">60<"))
        #expect(index.body.contains(">StudioDog</bdi></a></td><td class=\"count\">2<"))
        #expect(index.body.contains(">StudioNote</bdi></a></td><td class=\"count\">2<"))
        #expect(index.body.contains("href=\"/export.json\""), "links carry no token")
        #expect(!index.body.contains("/\(token)/"), "links carry no token")
        #expect(index.body.contains("<td><bdi>StudioAddress</bdi></td><td class=\"muted\">embedded</td>"))

        // A class page: 50 a page, Next, sorting.
        let people = try await http(base + "class/StudioPerson")
        #expect(people.status == 200)
        #expect(people.body.contains("60 objects"))
        #expect(people.body.components(separatedBy: "class=\"object-link\"").count - 1 == 50)
        #expect(people.body.contains("id=\"next\""))
        let second = try await http(base + "class/StudioPerson?page=2")
        #expect(second.body.components(separatedBy: "class=\"object-link\"").count - 1 == 10)
        let sorted = try await http(base + "class/StudioPerson?sort=id&asc=0")
        let firstLink = try #require(sorted.body.firstRange(of: "object/StudioPerson/"))
        #expect(sorted.body[firstLink.upperBound...].hasPrefix("60\""))

        // A query, and an invalid one: its error, and no objects (never the unfiltered ones as if they matched).
        let query = try await http(base + "class/StudioPerson?query=" + encoded("name == 'Person 7'"))
        #expect(query.body.contains("1 object matching"))
        #expect(!query.body.contains("query-error"))
        let bad = try await http(base + "class/StudioPerson?query=" + encoded("name === %@ <script>"))
        #expect(bad.status == 200)
        #expect(bad.body.contains("id=\"query-error\""))
        #expect(bad.body.contains("No objects shown"))
        #expect(!bad.body.contains("class=\"object-link\""))
        #expect(!bad.body.contains("<script>"))

        // An object page: link, list of links, backlinks.
        let person = try await http(base + "object/StudioPerson/1")
        #expect(person.status == 200)
        #expect(person.body.contains("href=\"/object/StudioDog/Rex\""))
        #expect(person.body.contains("href=\"/object/StudioPerson/2\""))
        #expect(person.body.contains("StudioAddress {city: Oslo, street: Karl Johans gate}"))
        #expect(person.body.contains("2 items"), "the list of friends")
        #expect(person.body.contains("2 entries</span>: <bdi>desk</bdi>: nil, <bdi>team</bdi>: <bdi>blue</bdi>"), "a map, a nil value included")
        let rex = try await http(base + "object/StudioDog/Rex")
        #expect(rex.body.contains("<bdi>StudioPerson</bdi>.<bdi>dog</bdi> (1)"))
        let friend = try await http(base + "object/StudioPerson/3")
        #expect(friend.body.contains("<bdi>StudioPerson</bdi>.<bdi>friends</bdi> (1)"))
        let note = try await http(base + "object/StudioNote/@1")
        #expect(note.status == 200)
        #expect(note.body.contains("first &lt;note&gt;"))

        // 404s.
        #expect(try await http(base + "class/Nope").status == 404)
        #expect(try await http(base + "object/StudioPerson/999").status == 404)
        #expect(try await http(base + "object/StudioPerson/abc").status == 404)
        #expect(try await http(base + "object/StudioNote/@7").status == 404)

        // Schema and export.
        let schema = try await http(base + "schema")
        #expect(schema.body.contains("primary key"))
        let export = try await http(base + "export.json")
        #expect(export.status == 200)
        #expect((export.headers["Content-Type"] as? String)?.hasPrefix("application/json") == true)
        #expect((export.headers["Content-Disposition"] as? String)?.hasPrefix("attachment") == true)
        #expect(export.body.contains("Person 42"))

        // Edits: a good value (followed through the 303), a bad one (400, nothing changed), nil for an optional.
        let edited = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "name", "value": "Edited Five"])
        #expect(edited.status == 200)
        #expect(edited.body.contains("Edited Five"))
        let badValue = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "age", "value": "old"])
        #expect(badValue.status == 400)
        #expect(badValue.body.contains("StudioPerson.age"))
        let score = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "score", "value": "2.5"])
        #expect(score.body.contains("2.5"))
        let born = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "born", "value": "2001-02-03T04:05:06Z"])
        #expect(born.body.contains("2001-02-03T04:05:06"))
        let badDate = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "born", "value": "yesterday"])
        #expect(badDate.status == 400 && badDate.body.contains("StudioPerson.born"))
        let primaryKey = try await http(base + "object/StudioPerson/5/set", method: "POST", form: ["property": "id", "value": "77"])
        #expect(primaryKey.status == 400)
        let deleted = try await http(base + "object/StudioPerson/60/delete", method: "POST", form: [:])
        #expect(deleted.status == 200)
        #expect(deleted.body.contains("59 objects"))

        studio.stop()
        #expect(try fixture.personName(5) == "Edited Five")
        #expect(try fixture.personName(60) == nil)
        #expect(try fixture.personBorn(5) == Date(timeIntervalSince1970: 981_173_106))
    }

    @Test("--keystore and --key-id open the vault; a wrong key prints no URL and fails")
    func keys() async throws {
        let fixture = try StudioFixture()
        let keystore = try fixture.makeKeyStore(id: "main")
        let studio = try StudioProcess(fixture: fixture, keyArguments: ["--keystore", keystore.path, "--key-id", "main"])
        let index = try await http(studio.baseURL)
        #expect(index.status == 200 && index.body.contains("StudioPerson"))
        studio.stop()

        let otherKey = fixture.directory.appendingPathComponent("other.vaultkey")
        try FileKeyStore.writeKeyFile(try MasterKey.generate(), identifier: "other", to: otherKey, passphrase: nil)
        #expect(throws: StudioTestError.self) {
            _ = try StudioProcess(fixture: fixture, keyArguments: ["--key-file", otherKey.path])
        }
        #expect(throws: StudioTestError.self) {
            _ = try StudioProcess(fixture: fixture, keyArguments: [])
        }
    }

    @Test("--read-only: no forms, and POST answers 403 and changes nothing")
    func readOnly() async throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture, extraArguments: ["--read-only", "--port", "0"])
        defer { studio.stop() }
        let page = try await http(studio.baseURL + "object/StudioPerson/5")
        #expect(page.status == 200)
        #expect(!page.body.contains("<form class=\"inline edit\""))
        #expect(!page.body.contains("delete-form"))
        let set = try await http(studio.baseURL + "object/StudioPerson/5/set", method: "POST", form: ["property": "name", "value": "X"])
        #expect(set.status == 403)
        let delete = try await http(studio.baseURL + "object/StudioPerson/5/delete", method: "POST", form: [:])
        #expect(delete.status == 403)
        studio.stop()
        #expect(try fixture.personName(5) == "Person 5")
    }

    @Test("hostile query text, sort keys, page numbers and keys never stop the server")
    func hostileInput() async throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let base = studio.baseURL
        let queries = ["name == %@", "%K == 1", "SUBQUERY(friends, $f, $f.age > 1).@count > 0", "friends.@count > 1",
                       "age BETWEEN {1}", "name CONTAINS[c] 'p' AND", "TRUEPREDICATE", "dog.breed == 'Collie'", "age == 'x'",
                       "@@@", "friends == nil", "dog == $0", "name IN {'a', 1}", "((((", "age > 1 SORT(name ASC) LIMIT(2)",
                       "nope == 1", "'; DROP TABLE StudioPerson; --", String(repeating: "(", count: 5000)]
        for query in queries {
            let result = try await http(base + "class/StudioPerson?query=" + encoded(query))
            #expect(result.status == 200, "\(query)")
        }
        for sort in ["friends", "dog", "nope", "dog.breed", ""] {
            #expect(try await http(base + "class/StudioPerson?sort=" + encoded(sort)).status == 200, "\(sort)")
        }
        for page in ["-5", "0", "99999999999999999999999", "x", "9223372036854775807"] {
            #expect(try await http(base + "class/StudioPerson?page=" + page).status == 200, "\(page)")
        }
        for key in ["%FF", "@-1", "@99999999999999999999", "-1", "9223372036854775807", "%00", "..", "@"] {
            #expect(try await http(base + "object/StudioPerson/" + key).status == 404, "\(key)")
            #expect(try await http(base + "object/StudioNote/" + key).status == 404, "\(key)")
        }
        for (property, value) in [("nope", "1"), ("friends", "x"), ("dog", "Rex"), ("age", "1e99"), ("age", ""), ("score", "abc")] {
            let result = try await http(base + "object/StudioPerson/4/set", method: "POST", form: ["property": property, "value": value])
            #expect(result.status == 400, "\(property)=\(value)")
        }
        #expect(try await http(base + "object/StudioPerson/4/set", method: "POST", form: [:]).status == 400)
        // Still serving, and nothing changed.
        #expect(try await http(base).status == 200)
        studio.stop()
        #expect(try fixture.personName(4) == "Person 4")
    }

    @Test("tokens are 32 lower-case hex digits, different each run, compared whole")
    func tokens() {
        let a = StudioToken.generate(), b = StudioToken.generate()
        #expect(a.count == 32 && a.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(a != b)
        #expect(StudioToken.matches(Substring(a), a))
        #expect(!StudioToken.matches(Substring(a.dropLast()), a))
        #expect(!StudioToken.matches(Substring(a + "0"), a))
        #expect(!StudioToken.matches("", a))
    }

    @Test("HTML escaping and value parsing")
    func escapingAndParsing() throws {
        #expect(HTML.escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;")
        #expect(FormDecoding.decode("a=1+2&b=%3C%3E&c")["a"] == "1 2")
        #expect(FormDecoding.decode("a=1+2&b=%3C%3E&c")["b"] == "<>")
    }
}
