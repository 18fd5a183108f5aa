import Foundation
import VaultCore
@_spi(VaultSync) import VaultKit

/// Sync's bookkeeping inside the vault: sealed by the same VFS as every page,
/// written in the same transactions as the objects it describes, so it can
/// never disagree with them after a crash.
///
///   _vaultkit_sync_meta     (key, value)        device id, clock, last local sequence, server cursor
///   _vaultkit_sync_objects  (class, pk, row, state)
///                           each synced object's merge state (ObjectStateCoding), and its row
///                           (NULL when deleted: the state keeps its incarnation)
///   _vaultkit_sync_pending  (id, clock, rows)   local commits not yet made into a change set (CommitRecorder)
///   _vaultkit_sync_outbox   (sequence, changeset)  local change sets not yet acknowledged
///   _vaultkit_sync_sealed   (sequence, envelope)   outbox entries as sealed for upload (retries send the same bytes)
///   _vaultkit_sync_applied  (device, sequence)     the last change set of each device applied
///   _vaultkit_sync_inbox    (device, sequence, changeset)  received, waiting for their predecessors
///   _vaultkit_sync_quarantine (server_sequence, device, sequence, reason, envelope)
///                           received envelopes that did not authenticate, skipped (QuarantinedChangeSet)
///   _vaultkit_sync_members  (position, signer, operations)  the membership entries applied, in log order (SpaceLedger)
///   _vaultkit_sync_refused  (server_sequence, device, sequence, reason)  entries refused by the trust rules (RefusedChangeSet)
///   _vaultkit_sync_epochs   (epoch, key, wrapped, recipients, confirmed)  the space keys this device holds (confirmed:
///                           taken from a verified entry, not only found ahead), each rotation's wrapped previous key,
///                           and the devices each epoch's key was sealed to
///
/// Every statement on these tables is in this type: the rest of VaultSync calls
/// its typed operations, and VaultKit lends only its connection
/// (``Vault/withSyncConnection(_:)``), never running SQL text it is handed.
struct SyncTables {
    let vault: Vault

    private static let createSQL = """
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_objects(class TEXT NOT NULL, pk TEXT NOT NULL, row INTEGER, state BLOB NOT NULL, PRIMARY KEY(class, pk)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _vaultkit_sync_objects_row ON _vaultkit_sync_objects(class, row);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_pending(id INTEGER PRIMARY KEY, clock INTEGER NOT NULL, rows BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_outbox(sequence INTEGER PRIMARY KEY, changeset BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_applied(device INTEGER PRIMARY KEY, sequence INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_inbox(device INTEGER NOT NULL, sequence INTEGER NOT NULL, changeset BLOB NOT NULL, PRIMARY KEY(device, sequence));
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_sealed(sequence INTEGER PRIMARY KEY, envelope BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_quarantine(server_sequence INTEGER PRIMARY KEY, device INTEGER NOT NULL, sequence INTEGER NOT NULL, reason TEXT NOT NULL, envelope BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_members(position INTEGER PRIMARY KEY, signer INTEGER NOT NULL, operations BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_epochs(epoch INTEGER PRIMARY KEY, key BLOB, wrapped BLOB, recipients BLOB, confirmed INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS _vaultkit_sync_refused(server_sequence INTEGER PRIMARY KEY, device INTEGER NOT NULL, sequence INTEGER NOT NULL, reason TEXT NOT NULL);
        """

    /// The prefix of the meta keys that name classes merged before this vault had them.
    private static let unknownClassPrefix = "unknownClass:"

    // MARK: Running statements

    private func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
        try vault.withSyncConnection { db in try db.cachedStatement(sql).execute(arguments) }
    }

    private func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        try vault.withSyncConnection { db in try db.cachedStatement(sql).fetchAll(arguments).map(\.values) }
    }

    private static func integer(_ value: UInt64) -> DatabaseValue { .integer(Int64(bitPattern: value)) }
    private static func unsigned(_ value: DatabaseValue) -> UInt64? { value.int64.map { UInt64(bitPattern: $0) } }

    /// Creates the tables that do not exist yet (inside a write transaction).
    func create() throws {
        try vault.withSyncConnection { db in try db.execute(Self.createSQL) }
    }

    // MARK: Objects

    /// The stored merge state of the object whose row is `rowID` in `className`.
    func objectState(className: String, row rowID: Int64) throws -> [UInt8]? {
        try rows("SELECT state FROM _vaultkit_sync_objects INDEXED BY _vaultkit_sync_objects_row WHERE class = ? AND row = ?",
                 [.text(className), .integer(rowID)]).first?[0].data.map { [UInt8]($0) }
    }

    /// The stored row and merge state of the object `primaryKey` (canonical text) of `className`.
    func object(className: String, primaryKey: String) throws -> (row: Int64?, state: [UInt8])? {
        guard let row = try rows("SELECT row, state FROM _vaultkit_sync_objects WHERE class = ? AND pk = ?",
                                 [.text(className), .text(primaryKey)]).first,
              let blob = row[1].data else { return nil }
        return (row[0].int64, [UInt8](blob))
    }

    /// Stores the merge state (and row, nil when deleted) of an object.
    func setObject(className: String, primaryKey: String, row: Int64?, state: [UInt8]) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_objects(class, pk, row, state) VALUES (?, ?, ?, ?)",
                [.text(className), .text(primaryKey), row.map { .integer($0) } ?? .null, .blob(Data(state))])
    }

    /// The merge states of `className`'s objects that have a row (`withRows`) or have none.
    func objectStates(className: String, withRows: Bool) throws -> [[UInt8]] {
        let sql = withRows
            ? "SELECT state FROM _vaultkit_sync_objects WHERE class = ? AND row IS NOT NULL"
            : "SELECT state FROM _vaultkit_sync_objects WHERE class = ? AND row IS NULL"
        return try rows(sql, [.text(className)]).compactMap { $0[0].data.map { [UInt8]($0) } }
    }

    /// The rows of `className` that sync knows.
    func knownRows(className: String) throws -> Set<Int64> {
        Set(try rows("SELECT row FROM _vaultkit_sync_objects WHERE class = ? AND row IS NOT NULL", [.text(className)]).compactMap { $0[0].int64 })
    }

    // MARK: Metadata

    func meta(_ key: String) throws -> UInt64? {
        try rows("SELECT value FROM _vaultkit_sync_meta WHERE key = ?", [.text(key)]).first.flatMap { Self.unsigned($0[0]) }
    }

    func setMeta(_ key: String, _ value: UInt64) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_meta(key, value) VALUES (?, ?)", [.text(key), Self.integer(value)])
    }

    /// The classes merged operations named before this vault had them.
    func unknownClasses() throws -> [String] {
        try rows("SELECT key FROM _vaultkit_sync_meta WHERE key >= 'unknownClass:' AND key < 'unknownClass;'")
            .compactMap { $0[0].string.map { String($0.dropFirst(Self.unknownClassPrefix.count)) } }
    }

    func addUnknownClass(_ name: String) throws {
        try run("INSERT OR IGNORE INTO _vaultkit_sync_meta(key, value) VALUES (?, 0)", [.text(Self.unknownClassPrefix + name)])
    }

    func removeUnknownClass(_ name: String) throws {
        try run("DELETE FROM _vaultkit_sync_meta WHERE key = ?", [.text(Self.unknownClassPrefix + name)])
    }

    // MARK: Applied change sets

    /// For each device, the last of its change sets applied here.
    func applied() throws -> [SyncDeviceID: UInt64] {
        var result: [SyncDeviceID: UInt64] = [:]
        for row in try rows("SELECT device, sequence FROM _vaultkit_sync_applied") {
            guard let device = Self.unsigned(row[0]), let sequence = Self.unsigned(row[1]) else { continue }
            result[SyncDeviceID(rawValue: device)] = sequence
        }
        return result
    }

    func setApplied(_ device: SyncDeviceID, _ sequence: UInt64) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_applied(device, sequence) VALUES (?, ?)",
                [Self.integer(device.rawValue), Self.integer(sequence)])
    }

    // MARK: Local commits and the outbox

    /// Notes a local commit's rows (encoded) with its clock.
    func addPendingCommit(clock: UInt64, rows encoded: [UInt8]) throws {
        try run("INSERT INTO _vaultkit_sync_pending(clock, rows) VALUES (?, ?)", [Self.integer(clock), .blob(Data(encoded))])
    }

    /// The noted commits, oldest first.
    func pendingCommits() throws -> [(clock: UInt64, rows: [UInt8])] {
        try rows("SELECT clock, rows FROM _vaultkit_sync_pending ORDER BY id").compactMap { row in
            guard let clock = Self.unsigned(row[0]), let blob = row[1].data else { return nil }
            return (clock, [UInt8](blob))
        }
    }

    func removePendingCommits() throws {
        try run("DELETE FROM _vaultkit_sync_pending")
    }

    func addToOutbox(sequence: UInt64, changeSet encoded: [UInt8]) throws {
        try run("INSERT INTO _vaultkit_sync_outbox(sequence, changeset) VALUES (?, ?)", [Self.integer(sequence), .blob(Data(encoded))])
    }

    /// The outbox's change sets (encoded), in sequence order.
    func outbox() throws -> [[UInt8]] {
        try rows("SELECT changeset FROM _vaultkit_sync_outbox ORDER BY sequence").map { row in
            guard let blob = row[0].data else { throw SyncError.malformedChangeSet("an outbox entry without bytes") }
            return [UInt8](blob)
        }
    }

    /// The envelopes kept for upload, by sequence.
    func sealedEnvelopes() throws -> [UInt64: [UInt8]] {
        var kept: [UInt64: [UInt8]] = [:]
        for row in try rows("SELECT sequence, envelope FROM _vaultkit_sync_sealed") {
            if let sequence = Self.unsigned(row[0]), let envelope = row[1].data { kept[sequence] = [UInt8](envelope) }
        }
        return kept
    }

    func setSealedEnvelope(sequence: UInt64, envelope: [UInt8]) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_sealed(sequence, envelope) VALUES (?, ?)", [Self.integer(sequence), .blob(Data(envelope))])
    }

    /// Drops the outbox entries and their envelopes up to `sequence`.
    func removeUploaded(through sequence: UInt64) throws {
        try run("DELETE FROM _vaultkit_sync_outbox WHERE sequence <= ?", [Self.integer(sequence)])
        try run("DELETE FROM _vaultkit_sync_sealed WHERE sequence <= ?", [Self.integer(sequence)])
    }

    /// Drops one outbox entry (its envelope stays until ``removeSealedEnvelope(sequence:)``).
    func removeFromOutbox(sequence: UInt64) throws {
        try run("DELETE FROM _vaultkit_sync_outbox WHERE sequence = ?", [Self.integer(sequence)])
    }

    func removeSealedEnvelope(sequence: UInt64) throws {
        try run("DELETE FROM _vaultkit_sync_sealed WHERE sequence = ?", [Self.integer(sequence)])
    }

    /// Adds an outbox entry already sealed (a membership entry: sealed once, when it is made).
    func addSealedToOutbox(sequence: UInt64, changeSet encoded: [UInt8], envelope: [UInt8]) throws {
        try addToOutbox(sequence: sequence, changeSet: encoded)
        try setSealedEnvelope(sequence: sequence, envelope: envelope)
    }

    // MARK: The inbox

    /// The received change sets (encoded) kept for their predecessors.
    func inbox() throws -> [[UInt8]] {
        try rows("SELECT changeset FROM _vaultkit_sync_inbox").compactMap { $0[0].data.map { [UInt8]($0) } }
    }

    func addToInbox(device: SyncDeviceID, sequence: UInt64, changeSet encoded: [UInt8]) throws {
        try run("INSERT OR IGNORE INTO _vaultkit_sync_inbox(device, sequence, changeset) VALUES (?, ?, ?)",
                [Self.integer(device.rawValue), Self.integer(sequence), .blob(Data(encoded))])
    }

    func removeFromInbox(device: SyncDeviceID, through sequence: UInt64) throws {
        try run("DELETE FROM _vaultkit_sync_inbox WHERE device = ? AND sequence <= ?", [Self.integer(device.rawValue), Self.integer(sequence)])
    }

    // MARK: The quarantine

    /// The quarantined envelopes, oldest first (none when sync never ran here).
    func quarantined() throws -> [QuarantinedChangeSet] {
        guard try !rows("SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_sync_quarantine'").isEmpty else { return [] }
        return try rows("SELECT server_sequence, device, sequence, reason, envelope FROM _vaultkit_sync_quarantine ORDER BY server_sequence").compactMap { row in
            guard let position = Self.unsigned(row[0]), let device = Self.unsigned(row[1]), let sequence = Self.unsigned(row[2]),
                  let reason = row[3].string, let envelope = row[4].data else { return nil }
            return QuarantinedChangeSet(serverSequence: position, device: SyncDeviceID(rawValue: device),
                                        sequence: sequence, reason: reason, envelope: [UInt8](envelope))
        }
    }

    func quarantine(_ entry: QuarantinedChangeSet) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_quarantine(server_sequence, device, sequence, reason, envelope) VALUES (?, ?, ?, ?, ?)",
                [Self.integer(entry.serverSequence), Self.integer(entry.device.rawValue), Self.integer(entry.sequence),
                 .text(entry.reason), .blob(Data(entry.envelope))])
    }

    func release(quarantinedAt position: UInt64) throws {
        try run("DELETE FROM _vaultkit_sync_quarantine WHERE server_sequence = ?", [Self.integer(position)])
    }

    // MARK: Membership and keys

    /// The membership entries applied, in log order: position, signer, encoded operations.
    func membershipEntries() throws -> [(position: UInt64, signer: SyncDeviceID, operations: [UInt8])] {
        try rows("SELECT position, signer, operations FROM _vaultkit_sync_members ORDER BY position").compactMap { row in
            guard let position = Self.unsigned(row[0]), let signer = Self.unsigned(row[1]), let blob = row[2].data else { return nil }
            return (position, SyncDeviceID(rawValue: signer), [UInt8](blob))
        }
    }

    func addMembershipEntry(position: UInt64, signer: SyncDeviceID, operations: [UInt8]) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_members(position, signer, operations) VALUES (?, ?, ?)",
                [Self.integer(position), Self.integer(signer.rawValue), .blob(Data(operations))])
    }

    /// The epochs known here: the key when this device holds it, the wrapped previous key when
    /// a rotation carried one, and the devices its key was sealed to.
    func epochs() throws -> [(epoch: UInt32, key: Data?, wrapped: [UInt8], recipients: [SyncDeviceID], confirmed: Bool)] {
        try rows("SELECT epoch, key, wrapped, recipients, confirmed FROM _vaultkit_sync_epochs ORDER BY epoch").compactMap { row in
            guard let epoch = row[0].int64, let value = UInt32(exactly: epoch) else { return nil }
            var recipients: [SyncDeviceID] = []
            if let blob = row[3].data {
                var reader = ByteReader([UInt8](blob))
                while reader.remaining >= 8 { recipients.append(SyncDeviceID(rawValue: try reader.u64())) }
            }
            return (value, row[1].data, row[2].data.map { [UInt8]($0) } ?? [], recipients, row[4].int64 == 1)
        }
    }

    /// Stores what is known of `epoch` (nil leaves a stored value as it is).
    func setEpoch(_ epoch: UInt32, key: Data?, wrapped: [UInt8]?, recipients: [SyncDeviceID]?, confirmed: Bool) throws {
        try run("INSERT OR IGNORE INTO _vaultkit_sync_epochs(epoch) VALUES (?)", [.integer(Int64(epoch))])
        try run("UPDATE _vaultkit_sync_epochs SET confirmed = ? WHERE epoch = ?", [.integer(confirmed ? 1 : 0), .integer(Int64(epoch))])
        if let key { try run("UPDATE _vaultkit_sync_epochs SET key = ? WHERE epoch = ?", [.blob(key), .integer(Int64(epoch))]) }
        if let wrapped { try run("UPDATE _vaultkit_sync_epochs SET wrapped = ? WHERE epoch = ?", [.blob(Data(wrapped)), .integer(Int64(epoch))]) }
        if let recipients {
            var writer = ByteWriter()
            for device in recipients.sorted(by: { $0.rawValue < $1.rawValue }) { writer.u64(device.rawValue) }
            try run("UPDATE _vaultkit_sync_epochs SET recipients = ? WHERE epoch = ?", [.blob(Data(writer.bytes)), .integer(Int64(epoch))])
        }
    }

    // MARK: Refused entries

    func refuse(_ entry: RefusedChangeSet) throws {
        try run("INSERT OR REPLACE INTO _vaultkit_sync_refused(server_sequence, device, sequence, reason) VALUES (?, ?, ?, ?)",
                [Self.integer(entry.serverSequence), Self.integer(entry.device.rawValue), Self.integer(entry.sequence), .text(entry.refusal.code)])
    }

    /// The entries refused here, oldest first.
    func refused() throws -> [RefusedChangeSet] {
        guard try !rows("SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_sync_refused'").isEmpty else { return [] }
        return try rows("SELECT server_sequence, device, sequence, reason FROM _vaultkit_sync_refused ORDER BY server_sequence").compactMap { row in
            guard let position = Self.unsigned(row[0]), let device = Self.unsigned(row[1]), let sequence = Self.unsigned(row[2]),
                  let code = row[3].string else { return nil }
            return RefusedChangeSet(serverSequence: position, device: SyncDeviceID(rawValue: device), sequence: sequence, refusal: SyncRefusal(code: code))
        }
    }
}
