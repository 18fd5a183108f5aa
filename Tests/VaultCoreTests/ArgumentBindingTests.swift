import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

/// Text and blob arguments are bound from a buffer the statement owns
/// (`SQLITE_STATIC`), not copied by SQLite: these check that every value still
/// arrives whole whatever its size, that the buffer's growth and reuse never
/// let one argument's bytes leak into another's, and that a reset clears them.
@Suite("Binding text and blob arguments")
struct ArgumentBindingTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func vault() throws -> VaultDatabase {
        let vault = try openVault(directory.file("b.vault"), key: try MasterKey.generate())
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c)") }
        return vault
    }

    @Test("values of every size, in one statement reused, round-trip exactly")
    func valuesRoundTrip() throws {
        let vault = try vault()
        // Small, empty, with NULs, multi-byte, then larger than the buffer (it grows), then small again.
        let texts = ["x", "", "a\u{0}b", "é🦊", String(repeating: "long ", count: 40), String(repeating: "ü", count: 5_000), "short"]
        let blobs = [Data([1]), Data(), Data([0, 0, 0]), Data(repeating: 7, count: 100), Data(repeating: 9, count: 70_000), Data([2, 3]), Data([4])]
        try vault.write { db in
            let insert = try db.cachedStatement("INSERT INTO t(id, a, b, c) VALUES (?, ?, ?, ?)")
            for (index, text) in texts.enumerated() {
                try insert.execute([.integer(Int64(index)), .text(text), .blob(blobs[index]), .text(text + "|" + text)])
            }
        }
        let rows = try vault.read { db in try db.fetchAll("SELECT a, b, c, typeof(a), typeof(b) FROM t ORDER BY id") }
        #expect(rows.count == texts.count)
        for (index, row) in rows.enumerated() {
            #expect(row[0] == .text(texts[index]), "text \(index)")
            #expect(row[1] == .blob(blobs[index]), "blob \(index)")
            #expect(row[2] == .text(texts[index] + "|" + texts[index]), "second text \(index)")
            // An empty string or blob is bound as itself, never as NULL.
            #expect(row[3] == .text("text") && row[4] == .text("blob"), "storage classes of row \(index)")
        }
    }

    @Test("a query argument bound in place selects the same rows as before")
    func queryArguments() throws {
        let vault = try vault()
        try vault.write { db in
            for index in 0..<50 { try db.execute("INSERT INTO t(id, a) VALUES (?, ?)", arguments: [.integer(Int64(index)), .text("name \(index % 5)")]) }
        }
        try vault.read { db in
            let select = try db.cachedStatement("SELECT count(*) FROM t WHERE a = ?")
            for value in 0..<5 {
                #expect(try select.fetchFirstValue([.text("name \(value)")]) == .integer(10))
            }
            #expect(try select.fetchFirstValue([.text(String(repeating: "z", count: 1_000))]) == .integer(0))
            #expect(try select.fetchFirstValue([.text("name 3")]) == .integer(10))
        }
    }

    @Test("a reset statement holds no argument bytes: its text parameter reads back as zeroes")
    func resetClearsArguments() throws {
        let vault = try vault()
        try vault.read { db in
            let select = try db.cachedStatement("SELECT ?")
            #expect(try select.fetchFirstValue([.text("secret")]) == .text("secret"))
            // Stepping again without binding (the documented misuse) must not see the old value.
            select.reset()
            #expect(try select.step())
            #expect(select.value(at: 0) == .text(String(repeating: "\u{0}", count: 6)))
            select.reset()
        }
    }
}
