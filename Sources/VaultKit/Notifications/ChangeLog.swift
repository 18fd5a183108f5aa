import Foundation
import VaultCore

// MARK: - The change log
//
// Change capture (ChangeCapture) sees the commits made in this process. A
// commit made by another process reaches this one as a wake-up on the commit
// pipe (CommitSignal) and a new commit sequence; re-running an observed query
// then gives exact insertions and deletions, but not which rows were
// *modified*, which only the writer knew. So the writer leaves that behind
// in the vault itself: while anyone observes the file — in this process, or
// in another one listening on the pipe — each commit also inserts one row
// into `_vaultkit_changes`, keyed by its commit sequence, holding what
// ChangeCapture recorded. An observer in another process whose coordinator
// lacks a commit reads the missing rows from its own snapshot (so the log it
// reads is exactly the one of the version it delivers) and merges them.
//
// Encoding. Compact and self-contained: per table its name, the sorted row
// ids inserted and deleted (delta-coded varints), and the rows written with
// the *names* of the properties written — property indexes are positions in
// one process's schema, names are what another process (another app version,
// another `objectTypes` subset) can map back. Names it does not know are
// dropped. The log holds row ids and property names, never a value, and like
// every page it is sealed by the VFS.
//
// Bounds. The writer deletes entries more than ``ChangeLog/retainedCommits``
// commits old every ``ChangeLog/pruneInterval`` commits, so the log stays a
// few pages whatever the write rate. An observer further behind, a commit made
// while nobody listened (the writer checks for a listener when the write
// transaction begins, so one that starts listening in between is missed), a
// read-only file, or an entry that does not decode: each falls back to exact
// insertions and deletions without modifications — never to wrong indices.
//
// Cost. Nothing when nobody observes: the check is one failed `open` of the
// pipe. When someone does, one INSERT of a few dozen bytes per commit.

/// Reads and writes the cross-process change log (`_vaultkit_changes`).
enum ChangeLog {
    /// How many commits' entries are kept.
    static let retainedCommits: UInt64 = 1024
    /// Old entries are deleted every this many commits.
    static let pruneInterval: UInt64 = 128

    static let createSQL = "CREATE TABLE IF NOT EXISTS _vaultkit_changes(sequence INTEGER PRIMARY KEY, changes BLOB NOT NULL)"
    static let tableExistsSQL = "SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_changes'"
    static let insertSQL = "INSERT OR REPLACE INTO _vaultkit_changes(sequence, changes) VALUES (?, ?)"
    static let pruneSQL = "DELETE FROM _vaultkit_changes WHERE sequence <= ?"
    static let selectRangeSQL = "SELECT sequence, changes FROM _vaultkit_changes WHERE sequence > ? AND sequence <= ? ORDER BY sequence"

    /// Appends the entry of commit `sequence` inside its write transaction (and prunes old ones now and then).
    static func append(_ changes: TransactionChanges, sequence: UInt64, on db: Database, schemas: (String) -> ObjectSchema?) throws {
        let bytes = encode(changes, schemas: schemas)
        try db.cachedStatement(insertSQL).execute([.integer(Int64(bitPattern: sequence)), .blob(Data(bytes))])
        if sequence % pruneInterval == 0, sequence > retainedCommits {
            try db.cachedStatement(pruneSQL).execute([.integer(Int64(bitPattern: sequence - retainedCommits))])
        }
    }

    /// The entries of the commits after `old` through `new`, decoded; `nil`
    /// unless every one of them is there and decodes.
    static func entries(after old: UInt64, through new: UInt64, on db: Database,
                        schemas: (String) -> ObjectSchema?) throws -> [(UInt64, TransactionChanges)]? {
        guard new > old, new - old <= retainedCommits else { return nil }
        guard try db.fetchOne(tableExistsSQL) != nil else { return nil }
        let rows = try db.cachedStatement(selectRangeSQL).fetchAll([.integer(Int64(bitPattern: old)), .integer(Int64(bitPattern: new))])
        guard rows.count == Int(new - old) else { return nil }
        var result: [(UInt64, TransactionChanges)] = []
        for row in rows {
            guard let sequence = row[0].int64, let blob = row[1].data,
                  let changes = decode([UInt8](blob), schemas: schemas) else { return nil }
            result.append((UInt64(bitPattern: sequence), changes))
        }
        return result
    }

    // MARK: Encoding

    private static let formatVersion: UInt8 = 1

    static func encode(_ changes: TransactionChanges, schemas: (String) -> ObjectSchema?) -> [UInt8] {
        var out: [UInt8] = [formatVersion]
        let tables = changes.tables.filter { !$0.value.isEmpty && !$0.key.hasPrefix("_vaultkit_") }
        appendVarint(UInt64(tables.count), to: &out)
        for (name, table) in tables.sorted(by: { $0.key < $1.key }) {
            appendString(name, to: &out)
            appendRowIDs(table.inserted.sorted(), to: &out)
            appendRowIDs(table.deleted.sorted(), to: &out)
            // The property names this table's entries refer to, then the entries.
            let schema = schemas(name)
            let indexes = Set(table.written.values.flatMap(\.indexes)).sorted()
            let names = indexes.map { index in schema.flatMap { $0.properties.indices.contains(index) ? $0.properties[index].name : nil } ?? "" }
            let position = Dictionary(uniqueKeysWithValues: indexes.enumerated().map { ($1, $0) })
            appendVarint(UInt64(names.count), to: &out)
            for name in names { appendString(name, to: &out) }
            let written = table.written.sorted { $0.key < $1.key }
            appendRowIDs(written.map(\.key), to: &out)
            for (_, properties) in written {
                out.append(properties.linkColumns ? 1 : 0)
                appendVarint(UInt64(properties.indexes.count), to: &out)
                for index in properties.indexes.sorted() { appendVarint(UInt64(position[index] ?? 0), to: &out) }
            }
        }
        return out
    }

    static func decode(_ bytes: [UInt8], schemas: (String) -> ObjectSchema?) -> TransactionChanges? {
        var reader = ByteReader(bytes: bytes)
        guard reader.byte() == formatVersion, let tableCount = reader.varint(), tableCount <= UInt64(bytes.count) else { return nil }
        var changes = TransactionChanges()
        for _ in 0..<tableCount {
            guard let name = reader.string(), let inserted = reader.rowIDs(), let deleted = reader.rowIDs(),
                  let nameCount = reader.varint(), nameCount <= UInt64(bytes.count) else { return nil }
            var names: [String] = []
            for _ in 0..<nameCount {
                guard let propertyName = reader.string() else { return nil }
                names.append(propertyName)
            }
            // Names to this process's property indexes (unknown names: dropped).
            let schema = schemas(name)
            let localIndexes = names.map { schema?.index(ofProperty: $0) }
            guard let writtenRows = reader.rowIDs() else { return nil }
            var table = TableChanges(inserted: Set(inserted), deleted: Set(deleted))
            for rowID in writtenRows {
                guard let flag = reader.byte(), let count = reader.varint(), count <= UInt64(bytes.count) else { return nil }
                var properties = WrittenProperties(linkColumns: flag == 1)
                for _ in 0..<count {
                    guard let position = reader.varint(), position < UInt64(localIndexes.count) else { return nil }
                    if let index = localIndexes[Int(position)] { properties.indexes.insert(index) }
                }
                table.written[rowID] = properties
            }
            changes.tables[name] = table
        }
        return reader.isAtEnd ? changes : nil
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        appendVarint(UInt64(utf8.count), to: &out)
        out += utf8
    }

    /// Sorted row ids as a count and zigzag-coded deltas.
    private static func appendRowIDs(_ rowIDs: [Int64], to out: inout [UInt8]) {
        appendVarint(UInt64(rowIDs.count), to: &out)
        var previous: Int64 = 0
        for rowID in rowIDs {
            let delta = rowID &- previous
            appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)), to: &out)
            previous = rowID
        }
    }

    /// Reads the encoding back; every accessor returns `nil` past the end.
    private struct ByteReader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        mutating func string() -> String? {
            guard let count = varint(), count <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(count) }
            return String(decoding: bytes[offset..<offset + Int(count)], as: UTF8.self)
        }

        mutating func rowIDs() -> [Int64]? {
            guard let count = varint(), count <= UInt64(bytes.count - offset) else { return nil }
            var rowIDs: [Int64] = []
            rowIDs.reserveCapacity(Int(count))
            var previous: Int64 = 0
            for _ in 0..<count {
                guard let zigzag = varint() else { return nil }
                let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                previous = previous &+ delta
                rowIDs.append(previous)
            }
            return rowIDs
        }
    }
}
