import CSQLite
import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

@Suite("Connection layer")
struct ConnectionTests {
    /// The test's directory; it lives as long as the suite instance (one per test).
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func vault() throws -> VaultDatabase {
        let vault = try openVault(directory.file("c.vault"), key: try MasterKey.generate())
        try vault.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, n INTEGER)") }
        return vault
    }

    @Test("constraint violations are typed SQLite errors with the extended code")
    func constraintErrors() throws {
        let vault = try vault()
        try vault.write { db in try db.execute("INSERT INTO t(name) VALUES (?)", arguments: ["ada"]) }
        let error = #expect(throws: VaultError.self) {
            try vault.write { db in try db.execute("INSERT INTO t(name) VALUES (?)", arguments: ["ada"]) }
        }
        guard case .sqlite(let sqliteError)? = error else { Issue.record("expected .sqlite, got \(String(describing: error))"); return }
        #expect(sqliteError.code == .constraint)
        #expect(sqliteError.extendedCode == SQLITE_CONSTRAINT | (8 << 8))   // SQLITE_CONSTRAINT_UNIQUE
        #expect(sqliteError.message.contains("UNIQUE constraint failed: t.name"))
        #expect(sqliteError.sql == "INSERT INTO t(name) VALUES (?)")
        #expect(!sqliteError.description.contains("ada"), "bound values never reach error text")
    }

    @Test("syntax errors name the statement")
    func syntaxErrors() throws {
        let vault = try vault()
        let error = #expect(throws: VaultError.self) {
            try vault.read { db in _ = try db.fetchAll("SELEC name FROM t") }
        }
        guard case .sqlite(let sqliteError)? = error else { Issue.record("expected .sqlite"); return }
        #expect(sqliteError.code == .error)
        #expect(sqliteError.message.contains("syntax error"))
    }

    @Test("a throwing transaction rolls back; a failed savepoint rolls back only itself")
    func transactionsAndSavepoints() throws {
        let vault = try vault()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try vault.write { db in
                try db.execute("INSERT INTO t(name) VALUES ('a')")
                throw Failure()
            }
        }
        #expect(try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 } == 0)

        try vault.write { db in
            try db.execute("INSERT INTO t(name) VALUES ('outer')")
            #expect(throws: Failure.self) {
                try db.transaction { db in       // nested: a savepoint
                    try db.execute("INSERT INTO t(name) VALUES ('inner')")
                    throw Failure()
                }
            }
            try db.savepoint { db in try db.execute("INSERT INTO t(name) VALUES ('kept')") }
            #expect(db.isInTransaction)
        }
        let names = try vault.read { db in try db.fetchAll("SELECT name FROM t ORDER BY id").compactMap { $0[0].string } }
        #expect(names == ["outer", "kept"])
    }

    @Test("statements are cached and arguments are checked")
    func statements() throws {
        let vault = try vault()
        try vault.write { db in
            let first = try db.cachedStatement("INSERT INTO t(name, n) VALUES (?, ?)")
            let second = try db.cachedStatement("INSERT INTO t(name, n) VALUES (?, ?)")
            #expect(first === second)
            #expect(first.parameterCount == 2)
            let error = #expect(throws: VaultError.self) { try first.execute(["only one"]) }
            guard case .misuse(let message)? = error else { Issue.record("expected misuse"); return }
            #expect(message.contains("takes 2 arguments, 1 were given"))
            try first.execute(["x", 7])
            #expect(db.lastInsertedRowID == 1)
            #expect(db.changesCount == 1)
        }
        let row = try vault.read { db in try db.fetchOne("SELECT name, n FROM t") }
        #expect(row?[0] == "x")
        #expect(row?[1] == .integer(7))
    }

    @Test("a connection entered from a second thread while in use is refused")
    func threadConfinement() throws {
        let vault = try vault()
        let result = Locked<VaultError?>(nil)
        try vault.write { db in
            nonisolated(unsafe) let shared = db     // what Swift 6 would refuse: sharing a connection
            let done = DispatchSemaphore(value: 0)
            Thread {
                do { try shared.execute("INSERT INTO t(name) VALUES ('other thread')") } catch let error as VaultError {
                    result.withLock { $0 = error }
                } catch {}
                done.signal()
            }.start()
            done.wait()
        }
        guard case .misuse(let message)? = result.withLock({ $0 }) else { Issue.record("expected misuse"); return }
        #expect(message.contains("another thread"))
        #expect(try vault.read { db in try db.fetchOne("SELECT count(*) FROM t")?[0].int64 } == 0)
    }

    @Test("page_size cannot be changed on a vault")
    func pageSizeIsFixed() throws {
        let vault = try vault()
        let error = #expect(throws: VaultError.self) {
            try vault.writeWithoutTransaction { db in try db.execute("PRAGMA page_size = 8192") }
        }
        #expect(error?.description.contains("4096-byte pages") == true)
    }

    @Test("values print their kind and size, never their content")
    func valueDescriptions() {
        #expect("\(DatabaseValue.text("secret"))" == "TEXT(6 bytes)")
        #expect("\(DatabaseValue.blob(Data([1, 2])))" == "BLOB(2 bytes)")
        #expect(!"\(Row(["secret", 42]))".contains("secret"))
    }
}
