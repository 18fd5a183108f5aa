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
// ask for.
//
// Inside a write transaction the cache keeps serving the read-modify-write
// loop Realm apps write (`object(ofType:forPrimaryKey:)`, then set a
// property). A property set is the one change that moves the version without
// emptying the cache: it is exact — one column of one row whose key cannot
// change — so the setter *patches* the cached row and carries the cache to
// the new version (`patch`), which is only done when the cache was at the
// version just before. Every other change (an insert, a delete, a collection
// change, a rollback, an advance, and a set of a row the cache does not hold
// or holds under another schema object of its class — a dynamic object's, a
// migration's) moves the version past the cache, which then empties itself
// on its next use, exactly as before. Versions only grow within a session,
// so a cache cannot be mistaken for a later version.

/// The rows a session looked up by primary key at its current version.
final class PrimaryKeyCache {
    /// The most rows kept: 65,536, about 250 bytes each for a six-column class
    /// (24 bytes per column value plus the entry), so at most about 16 MB per
    /// vault instance; emptied, not grown, when full.
    static let capacity = 65_536

    private struct Key: Hashable {
        let schema: ObjectIdentifier
        let primaryKey: DatabaseValue

        // Integer keys, the usual kind, compared and hashed without the
        // synthesized enum conformance's generic path (which compared every key
        // probed through an outlined copy of both values).
        static func == (a: Key, b: Key) -> Bool {
            guard a.schema == b.schema else { return false }
            if case .integer(let x) = a.primaryKey, case .integer(let y) = b.primaryKey { return x == y }
            return a.primaryKey == b.primaryKey
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(schema)
            if case .integer(let value) = primaryKey { hasher.combine(value) } else { hasher.combine(primaryKey) }
        }
    }

    /// A cached lookup: the row, or nil for "no object has this key".
    struct Row {
        let rowID: Int64
        private(set) var values: [DatabaseValue]

        init(rowID: Int64, values: [DatabaseValue]) {
            self.rowID = rowID
            self.values = values
        }

        /// Takes a property set (an index past the row's end is ignored).
        mutating func set(_ index: Int, to value: DatabaseValue) {
            guard values.indices.contains(index) else { return }
            values[index] = value
        }
    }

    // A cache belongs to one session and is used on that session's thread (a
    // frozen vault's under its lock: `exclusiveIfFrozen`), so the run-time
    // exclusivity checks of these fields would only repeat what that
    // confinement already guarantees; every lookup and store pays for them.
    @exclusivity(unchecked) private var version: UInt64 = 0
    @exclusivity(unchecked) private var rows: [Key: Row?] = [:]
    /// The schema object whose rows are cached, per class name: how `store` sees a second one of a class.
    @exclusivity(unchecked) private var schemaOfClass: [String: ObjectIdentifier] = [:]
    /// The schema object of the last store: a run of stores of one class (the
    /// usual case) records its schema once instead of hashing the class name
    /// on every store. `schemaOfClass` already maps its class to it.
    @exclusivity(unchecked) private var lastStoredSchema: ObjectIdentifier?
    /// Rows of one class are cached under two schema objects (a typed and a dynamic lookup): `patch` empties the cache instead.
    @exclusivity(unchecked) private var holdsSeveralSchemasOfAClass = false

    /// The number of lookups held (tests read it).
    var count: Int { rows.count }

    /// The cached lookup of `primaryKey` in `schema` at `version`: `.some(nil)`
    /// for a key known to be absent, nil when the cache does not know.
    func lookup(_ schema: ObjectSchema, _ primaryKey: DatabaseValue, version: UInt64) -> Row?? {
        guard version == self.version else { return nil }
        return rows[Key(schema: ObjectIdentifier(schema), primaryKey: primaryKey)]
    }

    /// Carries the cache from `version` to `newVersion` across a property set of
    /// one row that the cache holds: the row takes `value` at `index`. In every
    /// other case (the cache not at `version`, the row not cached, another
    /// schema object of the class cached) the cache is left behind: stale, and
    /// emptied at its next use.
    func patch(_ schema: ObjectSchema, rowID: Int64, primaryKey: DatabaseValue, index: Int, value: DatabaseValue,
               from version: UInt64, to newVersion: UInt64) {
        // Exact only if no other schema object of a class has rows cached (a dynamic
        // object's or a migration's schema of the same class would leave a row cached
        // under the other unpatched). With that flag clear, a row found under this
        // schema object means it is the only one cached for its class.
        guard version == self.version, !holdsSeveralSchemasOfAClass else { return }
        // Only a row the cache holds, under this key, for this row id: then no
        // other entry can describe the row (keys are stored as the lookups
        // encode them, which is how the row stores its key).
        guard let position = rows.index(forKey: Key(schema: ObjectIdentifier(schema), primaryKey: primaryKey)),
              let row = rows.values[position], row.rowID == rowID else { return }
        self.version = newVersion
        // In place, hashed once: the row's array (never shared: objects copy it) is not copied.
        rows.values[position]?.set(index, to: value)
    }

    /// Remembers the lookup of `primaryKey` in `schema` at `version`.
    func store(_ row: Row?, _ schema: ObjectSchema, _ primaryKey: DatabaseValue, version: UInt64) {
        if version != self.version || rows.count >= Self.capacity {
            rows.removeAll(keepingCapacity: version == self.version)
            schemaOfClass.removeAll()
            lastStoredSchema = nil
            holdsSeveralSchemasOfAClass = false
            self.version = version
        }
        let id = ObjectIdentifier(schema)
        if id != lastStoredSchema {
            if schemaOfClass.updateValue(id, forKey: schema.className).map({ $0 != id }) == true { holdsSeveralSchemasOfAClass = true }
            lastStoredSchema = id
        }
        rows[Key(schema: id, primaryKey: primaryKey)] = .some(row)
    }
}
