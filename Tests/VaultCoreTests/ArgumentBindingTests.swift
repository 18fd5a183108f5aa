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

    @Test("arguments over a mebibyte are bound in place: they arrive whole, beside small ones, and a later run binds afresh")
    func largeArgumentsInPlace() throws {
        let vault = try vault()
        let big = String(repeating: "ab\u{0}é", count: 400_000)
        let bigBlob = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try vault.write { db in
            let insert = try db.cachedStatement("INSERT INTO t(id, a, b, c) VALUES (?, ?, ?, ?)")
            try insert.execute([.integer(1), .text(big), .blob(bigBlob), .text("small")])
            try insert.execute([.integer(2), .text("x"), .blob(Data([1])), .text(big)])
            try insert.execute([.integer(3), .null, .null, .null])
            // A failed run (a repeated id) leaves nothing bound behind it either.
            #expect(throws: VaultError.self) { try insert.execute([.integer(1), .text(big), .null, .null]) }
            try insert.execute([.integer(4), .text("after"), .null, .null])
        }
        let rows = try vault.read { db in try db.fetchAll("SELECT a, b, c FROM t ORDER BY id") }
        #expect(rows.count == 4)
        #expect(rows[0][0] == .text(big) && rows[0][1] == .blob(bigBlob) && rows[0][2] == .text("small"))
        #expect(rows[1][0] == .text("x") && rows[1][2] == .text(big))
        #expect(rows[2][0] == .null && rows[2][1] == .null && rows[2][2] == .null)
        #expect(rows[3][0] == .text("after") && rows[3][1] == .null)
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
