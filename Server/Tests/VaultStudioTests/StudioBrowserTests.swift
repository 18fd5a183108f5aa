import Foundation
import Testing

@Suite("vault-studio in headless Chromium", .serialized)
struct StudioBrowserTests {
    @Test("load, open a class and an object, query (and a bad query), edit a value, and 403 without the token",
          .enabled(if: chromiumPath != nil, "Chromium is not installed (/usr/bin/chromium or chromium on PATH)"),
          .timeLimit(.minutes(3)))
    func browse() throws {
        let chromium = try #require(chromiumPath)
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let profile = fixture.directory.appendingPathComponent("chromium-profile")
        let browser = try CDPBrowser(executable: chromium, profile: profile)
        defer { browser.shutdown() }
        var shots: [URL] = []
        func shoot(_ name: String) throws {
            let file = fixture.directory.appendingPathComponent("\(name).png")
            try browser.screenshot(to: file)
            shots.append(file)
            print("vault-studio browser test: screenshot \(file.path)")
            // Kept past the test when asked (the temporary directory is removed).
            if let keep = ProcessInfo.processInfo.environment["VAULT_STUDIO_SCREENSHOTS"], !keep.isEmpty {
                let target = URL(fileURLWithPath: keep).appendingPathComponent("\(name).png")
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: file, to: target)
            }
        }

        // The class list.
        try browser.navigate(studio.baseURL)
        #expect(browser.text.contains("StudioPerson\t60"))
        try shoot("1-classes")

        // A class page, reached by clicking.
        try browser.evaluateAndWait("document.querySelector('a[href*=\"/class/StudioPerson\"]').click()")
        #expect(browser.location.hasSuffix("/class/StudioPerson"))
        #expect(browser.text.contains("60 objects"))
        try shoot("2-class")

        // A query through the form.
        try browser.evaluateAndWait("""
            (() => { const f = document.getElementById('query-form'); f.querySelector('input[name=query]').value = "age > 45"; f.submit(); })()
            """)
        let queried = browser.text
        #expect(queried.contains("matching the query"))
        #expect(try browser.evaluate("document.getElementById('query-error') === null") as? Bool == true)

        // A bad query: the error, and no objects.
        try browser.evaluateAndWait("""
            (() => { const f = document.getElementById('query-form'); f.querySelector('input[name=query]').value = "age >>> 'x'"; f.submit(); })()
            """)
        let error = try browser.evaluate("document.getElementById('query-error')?.innerText ?? ''") as? String ?? ""
        #expect(error.contains("Query error"))
        #expect(browser.text.contains("No objects shown"))
        #expect(try browser.evaluate("document.querySelectorAll('a.object-link').length") as? Int == 0)
        try shoot("3-query-error")

        // An object page, reached by clicking a row, then its link to the dog.
        try browser.navigate(studio.baseURL + "class/StudioPerson?sort=id&asc=1")
        try browser.evaluateAndWait("document.querySelector('a.object-link').click()")
        #expect(browser.location.hasSuffix("/object/StudioPerson/1"))
        #expect(browser.text.contains("Person 1"))
        try browser.evaluateAndWait("document.querySelector('a[href$=\"/object/StudioDog/Rex\"]').click()")
        #expect(browser.text.contains("Linked from"))
        #expect(browser.text.contains("StudioPerson.dog (1)"))

        // Edit a value through its form: the page shows the new value.
        try browser.navigate(studio.baseURL + "object/StudioPerson/2")
        try browser.evaluateAndWait("""
            (() => { const input = document.querySelector('input[data-property=name]'); input.value = 'Renamed in Chromium'; input.form.submit(); })()
            """)
        #expect(browser.location.hasSuffix("/object/StudioPerson/2"), "\(browser.text.prefix(300))")
        let value = try browser.evaluate("document.getElementById('value-name').innerText") as? String
        #expect(value == "Renamed in Chromium")
        try shoot("4-edited")

        // The address bar never showed the token after the first page.
        #expect(!browser.location.contains(studio.token))
        // Without the token or the cookie: 403.
        try browser.command("Network.clearBrowserCookies")
        let origin = String(studio.baseURL.prefix { $0 != "/" }) + "//" + (studio.baseURL.split(separator: "/").dropFirst().first.map(String.init) ?? "")
        try browser.navigate(origin + "/class/StudioPerson")
        #expect(browser.text.contains("Forbidden"))
        #expect(!browser.text.contains("Person 1"))

        browser.shutdown()
        studio.stop()
        #expect(try fixture.personName(2) == "Renamed in Chromium")
        #expect(shots.allSatisfy { ((try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? 0) > 1000 })
    }
}
