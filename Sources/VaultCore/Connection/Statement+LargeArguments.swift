import CSQLite
import Foundation

// A text or blob argument of more than a mebibyte is not copied into the statement's
// argument buffer (which would then hold that much for the statement's life) nor by
// SQLite (SQLITE_TRANSIENT): it is bound in place from the value's own storage, inside
// the closure that lends that storage, and the statement runs before the closure
// returns. A 200 MB string then costs the string and the record SQLite builds from it,
// not two more copies. After the run the bindings are cleared, so no pointer into the
// value outlives the call.

extension Statement {
    /// Arguments larger than this are bound in place (see above).
    static let inPlaceByteCount = 1 << 20

    /// Binds the small arguments as usual and the large ones in place, then runs the statement.
    func executeBindingLargeArgumentsInPlace(_ arguments: UnsafeBufferPointer<DatabaseValue>) throws(VaultError) {
        let large = arguments.indices.filter { arguments[$0].boundByteCount > Self.inPlaceByteCount }
        try bind(arguments.map { $0.boundByteCount > Self.inPlaceByteCount ? DatabaseValue.null : $0 })
        defer {
            sqlite3_clear_bindings(handle)
            reset()
        }
        try bindInPlace(arguments, pending: large[...])
    }

    /// Binds the first pending argument in place and recurses; with none left, runs the statement.
    private func bindInPlace(_ arguments: UnsafeBufferPointer<DatabaseValue>, pending: ArraySlice<Int>) throws(VaultError) {
        guard let index = pending.first else {
            while try step() {}
            return
        }
        var failure: VaultError?
        func run(_ status: Int32) {
            do throws(VaultError) {
                guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
                try bindInPlace(arguments, pending: pending.dropFirst())
            } catch {
                failure = error
            }
        }
        switch arguments[index] {
        case .text(let value):
            var text = value
            text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return run(SQLITE_MISUSE) }
                run(base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                    sqlite3_bind_text64(handle, Int32(index + 1), characters, UInt64(bytes.count), nil, UInt8(SQLITE_UTF8))
                })
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return run(SQLITE_MISUSE) }
                run(sqlite3_bind_blob64(handle, Int32(index + 1), base, UInt64(bytes.count), nil))
            }
        default:
            run(SQLITE_MISUSE)
        }
        if let failure { throw failure }
    }
}
