import Foundation
import Testing
import VaultCore
@_spi(Interchange) import VaultKit
@testable import VaultStudio

/// Values shown, edited and written back exactly; objects addressed by what never moves.
@Suite("vault-studio shows and writes every value exactly", .serialized)
struct StudioValueTests {
    /// Whether two values read from a vault are the same value (NaN equal to NaN, bit for bit otherwise).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (StudioValueCodec.unwrap(a), StudioValueCodec.unwrap(b)) {
        case (nil, nil): return true
        case (let x as Double, let y as Double): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (let x as Float, let y as Float): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (let x as Date, let y as Date): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
        case (let x as AnyVaultValue, let y as AnyVaultValue): return x == y
        case (let x as AnyHashable, let y as AnyHashable): return x == y
        default: return false
        }
    }

    @Test("parse(editText(v)) gives back v for every editable property of every kind, optionals and nil included")
    func codecRoundTrip() throws {
        let fixture = try StudioFixture()
        var configuration = Vault.Configuration(fileURL: fixture.vaultURL)
        configuration.masterKey = fixture.key
        configuration.schemaVersion = try schemaVersionAtURL(fixture.vaultURL, encryptionKey: configuration.encryptionKey)
        let vault = try Vault(configuration: configuration, isolation: nil)
        let schema = try #require(vault.storedSchema["StudioKinds"])
        let objects = vault.dynamicObjects("StudioKinds")
        #expect(objects.count == 3)
        var checked = 0
        for object in objects {
            for property in schema.properties where StudioValueCodec.isEditable(property) {
                let value = property.type == .mixed ? StudioValueCodec.mixedValue(payload: object[property.name]) : object[property.name]
                let text = try #require(StudioValueCodec.editText(value, for: property), "\(property.name)")
                #expect(!text.contains("Optional("), "\(property.name): \(text)")
                let parsed = try StudioValueCodec.parse(text, for: property, className: "StudioKinds")
                #expect(Self.same(parsed, value), "\(property.name): \(text) → \(String(describing: parsed))")
                checked += 1
            }
        }
        #expect(checked == 3 * 21)
        // Dates to the nanosecond digit the Double holds, in both directions.
        for seconds in [0.0, -0.000_001, 789_012_345.123456789, -3e10, 1e-9, 0.1, -1e-12, 1e-20, 123.456e6] {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            #expect(StudioValueCodec.parseDate(StudioValueCodec.dateText(date)) == date, "\(seconds)")
        }
        #expect(StudioValueCodec.dateText(Date(timeIntervalSince1970: 981_173_106.25)) == "2001-02-03T04:05:06.25Z")
        #expect(StudioValueCodec.parseDate("2001-02-03T04:05:06Z") == Date(timeIntervalSince1970: 981_173_106))
        #expect(StudioValueCodec.parseDate("2001-02-03T04:05:06.5+01:00") == Date(timeIntervalSince1970: 981_169_506.5))
        #expect(StudioValueCodec.parseDate("yesterday") == nil && StudioValueCodec.parseDate("2001-02-03T04:05:06.Z") == nil)
        #expect(StudioValueCodec.strictBase64("====") == nil && StudioValueCodec.strictBase64("YWJj====") == nil)
        #expect(StudioValueCodec.strictBase64("YWJj") == Data("abc".utf8))
    }

    @Test("optional values are shown and pre-filled as their values, never as Optional(…), and an unchanged save keeps them")
    func optionalsShownAsValues() async throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let page = try await http(studio.baseURL + "object/StudioKinds/@1")
        #expect(page.status == 200)
        #expect(!page.body.contains("Optional("))
        #expect(page.body.contains("name=\"value\" dir=\"auto\" value=\"user81@example.com\" data-property=\"optionalText\""))
        #expect(page.body.contains("value=\"121\" data-property=\"optionalNumber\""))
        let list = try await http(studio.baseURL + "class/StudioKinds")
        #expect(!list.body.contains("Optional("))
        #expect(!(try await http(studio.baseURL + "class/StudioPerson")).body.contains("Optional("))
        // Saved unchanged (without the form's expected value, so the text really is parsed and written).
        for (property, value) in [("optionalText", "user81@example.com"), ("optionalNumber", "121"), ("mixed", "string mixed text")] {
            let saved = try await http(studio.baseURL + "object/StudioKinds/@1/set", method: "POST", form: ["property": property, "value": value])
            #expect(saved.status == 200, "\(property)")
        }
        studio.stop()
        let vault = try fixture.openVault()
        let kinds = try #require(vault.objects(StudioKinds.self).first { $0.number == -42 })
        #expect(kinds.optionalText == "user81@example.com")
        #expect(kinds.optionalNumber == 121)
        #expect(kinds.mixed == .string("mixed text"))
    }

    @Test("an object without a primary key keeps its address after another is deleted; a stale edit is refused")
    func keylessAddressesAreStable() async throws {
        let fixture = try StudioFixture()
        let studio = try StudioProcess(fixture: fixture)
        defer { studio.stop() }
        let secondNote = try await http(studio.baseURL + "object/StudioNote/@2")
        #expect(secondNote.body.contains("value=\"second\""))
        let staleVersion = try #require(secondNote.body.firstMatch(of: /name="version" value="([0-9a-f]+)"/)?.1).description
        // The first note goes; the form opened on @2 still names the second note.
        #expect(try await http(studio.baseURL + "object/StudioNote/@1/delete", method: "POST", form: [:]).status == 200)
        #expect(try await http(studio.baseURL + "object/StudioNote/@1").status == 404)
        let edited = try await http(studio.baseURL + "object/StudioNote/@2/set", method: "POST",
                                    form: ["property": "text", "value": "second, edited", "expected": "second"])
        #expect(edited.status == 200)
        #expect(edited.body.contains("second, edited"))
        // An edit made against a value that has changed since: 409, nothing written.
        let stale = try await http(studio.baseURL + "object/StudioNote/@2/set", method: "POST",
                                   form: ["property": "text", "value": "overwritten", "expected": "second"])
        #expect(stale.status == 409)
        // A delete made on the page loaded before the edit: 409, the note stays.
        let staleDelete = try await http(studio.baseURL + "object/StudioNote/@2/delete", method: "POST", form: ["version": staleVersion])
        #expect(staleDelete.status == 409)
        studio.stop()
        let vault = try fixture.openVault()
        #expect(vault.objects(StudioNote.self).map(\.text) == ["second, edited"])
    }

    @Test("names are names: a class named .., a link named like query text, right-to-left overrides isolated, long values cut in lists")
    func oddNames() async throws {
        let fixture = try StudioOddFixture()
        let studio = try fixture.start()
        defer { studio.stop() }
        let base = studio.baseURL
        let index = try await http(base)
        #expect(index.body.contains("href=\"/class/~..\""))
        let dots = try await http(base + "class/~..")
        #expect(dots.status == 200 && dots.body.contains("1 object") && dots.body.contains("dots"))

        // Backlinks through the link property, whatever its name says.
        let linked = try await http(base + "object/Target/a")
        #expect(linked.body.contains("<bdi>Source</bdi>.<bdi>\(StudioOddFixture.injectionName)</bdi> (1)"))
        let unlinked = try await http(base + "object/Target/b")
        #expect(unlinked.body.contains("No object links here."))
        #expect(!unlinked.body.contains("(2)") && !unlinked.body.contains("(1)"))

        // Bidirectional overrides inside names and values are isolated; the window title drops them.
        let source = try await http(base + "object/Source/@1")
        #expect(source.body.contains("<bdi>abc\u{202E}def</bdi>"))
        #expect(source.body.contains("<bdi>\(StudioOddFixture.rtlName)</bdi>"))
        #expect(source.body.contains("<title>Source @1 — Vault Studio</title>"))
        #expect(source.body.contains(StudioOddFixture.longValue), "the object's page shows the whole value")
        let list = try await http(base + "class/Source")
        #expect(list.status == 200)
        #expect(list.body.utf8.count < 50_000, "\(list.body.utf8.count) bytes")
        #expect(list.body.contains("1000000 characters"))
        // A property whose name holds a space and an override is edited like any other.
        let edited = try await http(base + "object/Source/@2/set", method: "POST", form: ["property": StudioOddFixture.rtlName, "value": "set"])
        #expect(edited.status == 200 && edited.body.contains("<bdi>set</bdi>"))
    }
}
