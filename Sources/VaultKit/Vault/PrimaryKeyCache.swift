import Foundation
import VaultCore

// MARK: - Rows by primary key, once per version
//
// `object(ofType:forPrimaryKey:)` is the read apps repeat most: the same few
// keys, looked up again and again while nothing changes. Each lookup is a
// statement step through the encrypted B-tree and a decode of the row. The
// session keeps the rows it looked up by key for the version it reads
// (`contentVersion`, which every write and every advance changes), so a
// repeated lookup of an unchanged vault is a dictionary read; the managed
// object built from it is as fresh as one built from SQLite, because both
// are of the same version.
//
// The cache holds at most `capacity` rows (their column values, no objects)
// and is emptied when it would grow past it, and whenever the version moves.
// Misses are remembered too (a key with no object), which existence checks
// ask for. Inside a write transaction the cache is not used: every change
// moves the version, and the writer's own pending update must reach SQLite
// before a lookup (which `withDatabase` does).

/// The rows a session looked up by primary key at its current version.
final class PrimaryKeyCache {
    /// The most rows kept: 65,536, about 250 bytes each for a six-column class
    /// (24 bytes per column value plus the entry), so at most about 16 MB per
    /// vault instance; emptied, not grown, when full.
    static let capacity = 65_536

    private struct Key: Hashable {
        let schema: ObjectIdentifier
        let primaryKey: DatabaseValue
    }

    /// A cached lookup: the row, or nil for "no object has this key".
    struct Row {
        let rowID: Int64
        let values: [DatabaseValue]
    }

    private var version: UInt64 = 0
    private var rows: [Key: Row?] = [:]

    /// The number of lookups held (tests read it).
    var count: Int { rows.count }

    /// The cached lookup of `primaryKey` in `schema` at `version`: `.some(nil)`
    /// for a key known to be absent, nil when the cache does not know.
    func lookup(_ schema: ObjectSchema, _ primaryKey: DatabaseValue, version: UInt64) -> Row?? {
        guard version == self.version else { return nil }
        return rows[Key(schema: ObjectIdentifier(schema), primaryKey: primaryKey)]
    }

    /// Remembers the lookup of `primaryKey` in `schema` at `version`.
    func store(_ row: Row?, _ schema: ObjectSchema, _ primaryKey: DatabaseValue, version: UInt64) {
        if version != self.version || rows.count >= Self.capacity {
            rows.removeAll(keepingCapacity: version == self.version)
            self.version = version
        }
        rows[Key(schema: ObjectIdentifier(schema), primaryKey: primaryKey)] = .some(row)
    }
}
