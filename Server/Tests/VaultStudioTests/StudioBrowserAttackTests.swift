import Foundation
import Testing

/// What a page on another site, a rebinding DNS name and a careless edit can do to
/// a running studio in a real browser: nothing.
@Suite("vault-studio against hostile pages in headless Chromium", .serialized)
struct StudioBrowserAttackTests {
    /// A `data:` URL of an HTML page (its origin is opaque: the browser sends `Origin: null`).
    private func dataPage(_ html: String) -> String {
        "data:text/html;charset=utf-8," + (html.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    @Test("every kind saved unchanged in the browser exports identically; an edit after another key-less object's delete",
          .enabled(if: chromiumPath != nil, "Chromium is not installed (/usr/bin/chromium or chromium on PATH)"),
          .timeLimit(.minutes(3)))
    func roundTripAndStableAddresses() async throws {
        let chromium = try #require(chromiumPath)
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let browser = try CDPBrowser(executable: chromium, profile: fixture.directory.appendingPathComponent("chromium-profile"))
        defer { browser.shutdown() }
        let before = try await http(studio.baseURL + "export.json").body

        // Every edit form of every StudioKinds object submitted as shown, with the form's
        // `expected` field removed so the server parses and writes each value.
        try browser.navigate(studio.baseURL)
        var submitted = 0
        for row in 1...3 {
            try browser.navigate("http://127.0.0.1:\(studio.port)/object/StudioKinds/@\(row)")
            let properties = try browser.evaluate("Array.from(document.querySelectorAll('input[data-property]')).map(i => i.dataset.property)") as? [String] ?? []
            #expect(properties.count == 21, "row \(row): \(properties)")
            for property in properties {
                try browser.evaluateAndWait("""
                    (() => { const input = document.querySelector('input[data-property="\(property)"]');
                             input.form.querySelector('input[name=expected]').remove(); input.form.submit(); })()
                    """)
                #expect(browser.location.hasSuffix("/object/StudioKinds/@\(row)"), "\(property): \(browser.text.prefix(200))")
                submitted += 1
            }
        }
        #expect(submitted == 63)
        let after = try await http(studio.baseURL + "export.json").body
        #expect(after == before, "the export changed after saving every value unchanged")

        // A page opened on the second note; the first note deleted elsewhere; the form still edits the second.
        try browser.navigate("http://127.0.0.1:\(studio.port)/object/StudioNote/@2")
        #expect(try await http(studio.baseURL + "object/StudioNote/@1/delete", method: "POST", form: [:]).status == 200)
        try browser.evaluateAndWait("""
            (() => { const input = document.querySelector('input[data-property=text]'); input.value = 'edited in Chromium'; input.form.submit(); })()
            """)
        #expect(browser.location.hasSuffix("/object/StudioNote/@2"))
        browser.shutdown()
        studio.stop()
        #expect(try fixture.openVault().objects(StudioNote.self).map(\.text) == ["edited in Chromium"])
    }

    @Test("a cross-origin form and fetch, a rebinding host name and a foreign frame are refused; names are never query text",
          .enabled(if: chromiumPath != nil, "Chromium is not installed (/usr/bin/chromium or chromium on PATH)"),
          .timeLimit(.minutes(3)))
    func hostilePages() async throws {
        let chromium = try #require(chromiumPath)
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        // evil.example resolves to the studio's address, as a rebinding DNS server would make it.
        let browser = try CDPBrowser(executable: chromium, profile: fixture.directory.appendingPathComponent("chromium-profile"),
                                     extraArguments: ["--host-resolver-rules=MAP evil.example 127.0.0.1"])
        defer { browser.shutdown() }
        let port = studio.port
        try browser.navigate(studio.baseURL)   // the browser holds the session cookie from here on
        #expect(browser.text.contains("StudioPerson"))

        // A page on another origin (another port of this machine, so that nothing but the
        // studio's own checks stands between it and the studio): two forms, a fetch, a frame.
        let attacker = try AttackerPageServer(html: """
            <!DOCTYPE html><html><body><p>attacker</p>
            <form id="token" method="POST" action="http://127.0.0.1:\(port)/\(studio.token)/object/StudioPerson/3/set">\
            <input name="property" value="name"><input name="value" value="Hacked by a form"></form>
            <form id="cookie" method="POST" action="http://127.0.0.1:\(port)/object/StudioPerson/3/set">\
            <input name="property" value="name"><input name="value" value="Hacked by a form"></form>
            <iframe id="frame" src="http://127.0.0.1:\(port)/\(studio.token)/"></iframe>
            </body></html>
            """)
        defer { attacker.stop() }
        let attackerPage = "http://localhost:\(attacker.port)/"
        for form in ["token", "cookie"] {
            try browser.navigate(attackerPage)
            try browser.evaluateAndWait("document.getElementById('\(form)').submit()")
            #expect(browser.text.contains("Forbidden"), "\(form): \(browser.text.prefix(200))")
        }
        // A page with an opaque origin (Origin: null).
        try browser.navigate(dataPage("""
            <form method="POST" action="http://127.0.0.1:\(port)/\(studio.token)/object/StudioPerson/3/set">\
            <input name="property" value="name"><input name="value" value="Hacked from data:"></form>
            """))
        try browser.evaluateAndWait("document.forms[0].submit()")
        #expect(browser.text.contains("Forbidden"), "\(browser.text.prefix(200))")
        // A fetch from the other origin, as text/plain (no preflight) and as a form.
        try browser.navigate(attackerPage)
        for type in ["text/plain", "application/x-www-form-urlencoded"] {
            _ = try browser.evaluate("""
                window.done = false;
                fetch('http://127.0.0.1:\(port)/\(studio.token)/object/StudioPerson/3/set', {method: 'POST', mode: 'no-cors',
                      headers: {'Content-Type': '\(type)'}, body: 'property=name&value=Hacked+by+fetch'})
                  .finally(() => { window.done = true; });
                """)
            try browser.wait(until: "window.done === true")
        }
        // The studio inside the other page's frame: refused by the browser (frame-ancestors 'none').
        let frames = try browser.crossOriginFrames().filter { $0.requested.contains(":\(port)/") }
        #expect(frames.count == 1, "\(frames)")
        for frame in frames {
            #expect(frame.location.hasPrefix("chrome-error:"), "framed studio at \(frame.location)")
            #expect(!frame.text.contains("StudioPerson"))
        }

        // A rebinding host name: the page is refused although it reaches the studio with the token.
        try browser.navigate("http://evil.example:\(port)/\(studio.token)/class/StudioPerson")
        #expect(browser.text.contains("Forbidden"))
        #expect(!browser.text.contains("Person 1"))

        browser.shutdown()
        studio.stop()
        #expect(try fixture.personName(3) == "Person 3")

        // The odd vault: a link property named like query text lists only the objects that link.
        let odd = try StudioOddFixture()
        let oddStudio = try odd.start()
        defer { oddStudio.stop() }
        let second = try CDPBrowser(executable: chromium, profile: odd.directory.appendingPathComponent("chromium-profile"))
        defer { second.shutdown() }
        try second.navigate(oddStudio.baseURL + "object/Target/b")
        #expect(second.text.contains("No object links here."))
        try second.navigate(oddStudio.baseURL + "object/Target/a")
        #expect(second.text.contains("Source.\(StudioOddFixture.injectionName) (1)"))
        try second.navigate(oddStudio.baseURL)
        try second.evaluateAndWait("document.querySelector('a[href=\"/class/~..\"]').click()")
        #expect(second.text.contains("1 object"))
        #expect(second.text.contains("dots"))
    }
}
