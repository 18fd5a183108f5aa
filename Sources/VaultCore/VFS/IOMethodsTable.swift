import CSQLite

/// An `sqlite3_io_methods` table at a fixed address, for every file of a VFS
/// to point at (`sqlite3_file.pMethods`).
///
/// SQLite keeps the pointer for as long as the file is open, so the table is
/// allocated once, when the VFS is first used, and never freed or written
/// again. Reading it from any thread is safe: nothing changes it after
/// `init`. (A pointer taken from a global `var` with `withUnsafePointer(to: &…)`
/// would be valid only inside that call, and every such call is a
/// modifying access to the global that races with the next file opened on
/// another thread.)
struct IOMethodsTable: @unchecked Sendable {
    /// The table SQLite reads.
    let pointer: UnsafePointer<sqlite3_io_methods>

    init(methods: sqlite3_io_methods) {
        let table = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        table.initialize(to: methods)
        pointer = UnsafePointer(table)
    }
}
