import Crypto
import Foundation
import Logging
import NIOCore
import PostgresNIO
import VaultSync

/// The sync server's store on PostgreSQL (see SyncStore.swift for what it keeps).
///
/// Appends to a space take a row lock on the space's row, so the log is
/// numbered without gaps in commit order, and notify every process listening
/// on the `vault_sync_append` channel in the same transaction (PostgreSQL
/// delivers the notification when it commits). Run ``run()`` for as long as
/// the store is used: it drives the connection pool.
public final class PostgresSyncStore: SyncStore {
    private let client: PostgresClient
    private let logger: Logger
    static let channel = "vault_sync_append"

    /// A store on the database `url` names.
    public init(url: DatabaseURL, logger: Logger) {
        var configuration = PostgresClient.Configuration(host: url.host, port: url.port, username: url.username,
                                                         password: url.password, database: url.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 16
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Drives the connection pool until the calling task is cancelled.
    public func run() async { await client.run() }

    public func migrate() async throws {
        try await client.withConnection { connection in
            // One process migrates at a time; the others wait, then find the work done.
            try await connection.query("SELECT pg_advisory_lock(7246813)", logger: logger)
            do {
                try await PostgresSchema.migrate(connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(7246813)", logger: logger)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(7246813)", logger: logger)
                throw error
            }
        }
    }

    public func grant(forTokenDigest digest: [UInt8]) async throws -> DeviceGrant? {
        let rows = try await client.query(
            "SELECT id, space_name, device_label FROM vault_sync_tokens WHERE digest = \(ByteBuffer(bytes: digest)) AND revoked_at IS NULL",
            logger: logger)
        for try await (id, spaceName, deviceLabel) in rows.decode((Int64, String, String).self) {
            return DeviceGrant(tokenID: id, spaceName: spaceName, space: SyncSpaceID(name: spaceName), deviceLabel: deviceLabel)
        }
        return nil
    }

    public func tokenIsLive(_ tokenID: Int64) async throws -> Bool {
        let rows = try await client.query("SELECT 1 FROM vault_sync_tokens WHERE id = \(tokenID) AND revoked_at IS NULL", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    public func issueToken(digest: [UInt8], spaceName: String, deviceLabel: String) async throws -> Int64 {
        let rows = try await client.query(
            "INSERT INTO vault_sync_tokens(digest, space_name, device_label) VALUES (\(ByteBuffer(bytes: digest)), \(spaceName), \(deviceLabel)) RETURNING id",
            logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        throw SyncServerError.store("the token was not stored")
    }

    public func revokeTokens(spaceName: String, deviceLabel: String) async throws -> Int {
        let rows = try await client.query(
            "UPDATE vault_sync_tokens SET revoked_at = now() WHERE space_name = \(spaceName) AND device_label = \(deviceLabel) AND revoked_at IS NULL RETURNING id",
            logger: logger)
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count
    }

    public func append(_ changeSets: [SealedChangeSet], space: SyncSpaceID, uploader: DeviceGrant, quota: Int64) async throws -> AppendOutcome {
        guard !changeSets.isEmpty else { return AppendOutcome(receipts: [], stored: 0, storedBytes: 0, deduplicated: 0) }
        do {
            return try await appendInTransaction(changeSets, space: space, uploader: uploader, quota: quota)
        } catch let error as PostgresTransactionError {
            // A refusal thrown inside the transaction (rolled back): the refusal itself.
            if let refusal = error.closureError as? AppendRefusal, error.rollbackError == nil { throw refusal }
            throw error
        }
    }

    private func appendInTransaction(_ changeSets: [SealedChangeSet], space: SyncSpaceID, uploader: DeviceGrant, quota: Int64) async throws -> AppendOutcome {
        let spaceBytes = ByteBuffer(bytes: space.bytes)
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("INSERT INTO vault_sync_spaces(space) VALUES (\(spaceBytes)) ON CONFLICT DO NOTHING", logger: logger)
            var head: Int64 = 0
            var totalBytes: Int64 = 0
            var signed = false
            for try await (storedHead, storedBytes, storedSigned) in try await connection.query(
                "SELECT head, total_bytes, signed FROM vault_sync_spaces WHERE space = \(spaceBytes) FOR UPDATE", logger: logger
            ).decode((Int64, Int64, Bool).self) {
                head = storedHead
                totalBytes = storedBytes
                signed = storedSigned
            }
            // A space's first signed envelope makes it a signed space; unsigned ones are refused after it.
            let signedUpload = changeSets.map { (try? EnvelopeHeader(envelope: $0.envelope))?.isSigned == true }
            if signed || signedUpload.contains(true) {
                guard signedUpload.allSatisfy({ $0 }) else { throw AppendRefusal.unsignedInSignedSpace }
                if !signed { try await connection.query("UPDATE vault_sync_spaces SET signed = true WHERE space = \(spaceBytes)", logger: logger) }
            }
            // Every author device of the upload must be the uploader's: the first device label
            // to upload a device's change sets claims it.
            let authors = Array(Set(changeSets.map { Int64(bitPattern: $0.device.rawValue) }))
            try await connection.query(
                """
                INSERT INTO vault_sync_devices(space, device, device_label)
                SELECT \(spaceBytes), device, \(uploader.deviceLabel) FROM unnest(\(authors)::bigint[]) AS device
                ON CONFLICT DO NOTHING
                """, logger: logger)
            for try await (device, label) in try await connection.query(
                "SELECT device, device_label FROM vault_sync_devices WHERE space = \(spaceBytes) AND device = ANY(\(authors))", logger: logger
            ).decode((Int64, String).self) where label != uploader.deviceLabel {
                throw AppendRefusal.foreignDevice(SyncDeviceID(rawValue: UInt64(bitPattern: device)))
            }
            // Change sets stored before (a retried upload) keep their place; other bytes under their key are refused.
            let devices = changeSets.map { Int64(bitPattern: $0.device.rawValue) }
            let sequences = changeSets.map { Int64(bitPattern: $0.sequence) }
            var stored: [StoredKey: (serverSequence: UInt64, digest: [UInt8])] = [:]
            for try await (device, sequence, serverSequence, digest) in try await connection.query(
                """
                SELECT device, sequence, server_sequence, sha256(envelope) FROM vault_sync_log
                WHERE space = \(spaceBytes) AND device = ANY(\(devices)) AND sequence = ANY(\(sequences))
                """, logger: logger
            ).decode((Int64, Int64, Int64, ByteBuffer).self) {
                stored[StoredKey(device: UInt64(bitPattern: device), sequence: UInt64(bitPattern: sequence))] = (UInt64(serverSequence), Array(buffer: digest))
            }
            var receipts: [UploadReceipt] = []
            var storedBytes = 0, deduplicated = 0
            for changeSet in changeSets {
                let key = StoredKey(device: changeSet.device.rawValue, sequence: changeSet.sequence)
                let digest = Array(SHA256.hash(data: changeSet.envelope))
                if let existing = stored[key] {
                    guard existing.digest == digest else {
                        throw AppendRefusal.conflictingChangeSet(device: changeSet.device, sequence: changeSet.sequence, serverSequence: existing.serverSequence)
                    }
                    receipts.append(UploadReceipt(device: changeSet.device, sequence: changeSet.sequence, serverSequence: existing.serverSequence))
                    deduplicated += 1
                    continue
                }
                guard totalBytes + Int64(changeSet.envelope.count) <= quota else { throw AppendRefusal.quotaExceeded(limit: quota) }
                head += 1
                totalBytes += Int64(changeSet.envelope.count)
                storedBytes += changeSet.envelope.count
                try await connection.query(
                    """
                    INSERT INTO vault_sync_log(space, server_sequence, device, sequence, envelope, end_offset)
                    VALUES (\(spaceBytes), \(head), \(Int64(bitPattern: key.device)), \(Int64(bitPattern: key.sequence)),
                            \(ByteBuffer(bytes: changeSet.envelope)), \(totalBytes))
                    """, logger: logger)
                stored[key] = (UInt64(head), digest)
                receipts.append(UploadReceipt(device: changeSet.device, sequence: changeSet.sequence, serverSequence: UInt64(head)))
            }
            let storedCount = receipts.count - deduplicated
            if storedCount > 0 {
                try await connection.query(
                    "UPDATE vault_sync_spaces SET head = \(head), total_bytes = \(totalBytes) WHERE space = \(spaceBytes)", logger: logger)
                let payload = "\(space):\(head)"
                try await connection.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: logger)
            }
            return AppendOutcome(receipts: receipts, stored: storedCount, storedBytes: storedBytes, deduplicated: deduplicated)
        }
    }

    public func register(_ keys: DevicePublicKeys, space: SyncSpaceID, uploader: DeviceGrant) async throws {
        let spaceBytes = ByteBuffer(bytes: space.bytes)
        let device = Int64(bitPattern: keys.deviceID.rawValue)
        let signing = ByteBuffer(bytes: keys.signing)
        let box = ByteBuffer(bytes: keys.box)
        // Claims the device id for this label, or fills in the keys of the label's own row; a row of another label is left alone.
        let rows = try await client.query(
            """
            INSERT INTO vault_sync_devices(space, device, device_label, signing_key, box_key)
            VALUES (\(spaceBytes), \(device), \(uploader.deviceLabel), \(signing), \(box))
            ON CONFLICT (space, device) DO UPDATE SET signing_key = COALESCE(vault_sync_devices.signing_key, EXCLUDED.signing_key),
                box_key = COALESCE(vault_sync_devices.box_key, EXCLUDED.box_key)
            WHERE vault_sync_devices.device_label = EXCLUDED.device_label
            RETURNING signing_key
            """, logger: logger)
        var stored: ByteBuffer??
        for try await signingKey in rows.decode(ByteBuffer?.self) { stored = .some(signingKey) }
        guard let stored else { throw AppendRefusal.foreignDevice(keys.deviceID) }
        guard stored.map({ Array(buffer: $0) }) == keys.signing else { throw AppendRefusal.keysMismatch(keys.deviceID) }
    }

    public func page(space: SyncSpaceID, after: UInt64, limit: Int, maxBytes: Int) async throws -> LogPage {
        let spaceBytes = ByteBuffer(bytes: space.bytes)
        let after = Int64(clamping: after)
        let rows = try await client.query(
            """
            SELECT server_sequence, envelope, end_offset FROM vault_sync_log
            WHERE space = \(spaceBytes) AND server_sequence > \(after)
              AND (server_sequence = \(after) + 1 OR end_offset <= COALESCE(
                    (SELECT end_offset FROM vault_sync_log WHERE space = \(spaceBytes) AND server_sequence = \(after)), 0) + \(Int64(maxBytes)))
            ORDER BY server_sequence LIMIT \(Int64(max(1, limit)))
            """, logger: logger)
        var items: [DeliveredChangeSet] = []
        var lastOffset: Int64 = 0
        for try await (serverSequence, envelope, endOffset) in rows.decode((Int64, ByteBuffer, Int64).self) {
            let changeSet = try SealedChangeSet(envelope: Array(buffer: envelope))
            items.append(DeliveredChangeSet(serverSequence: UInt64(serverSequence), changeSet: changeSet))
            lastOffset = endOffset
        }
        let current = try await head(space: space)
        let remaining = items.isEmpty ? 0 : max(0, Int64(clamping: current.totalBytes) - lastOffset)
        return LogPage(items: items, head: current.head, remainingBytes: UInt64(remaining))
    }

    public func head(space: SyncSpaceID) async throws -> LogHead {
        let rows = try await client.query(
            "SELECT head, total_bytes FROM vault_sync_spaces WHERE space = \(ByteBuffer(bytes: space.bytes))", logger: logger)
        for try await (head, totalBytes) in rows.decode((Int64, Int64).self) {
            return LogHead(head: UInt64(head), totalBytes: UInt64(totalBytes))
        }
        return LogHead(head: 0, totalBytes: 0)
    }

    public func acknowledge(space: SyncSpaceID, tokenID: Int64, through: UInt64) async throws {
        try await client.query(
            """
            INSERT INTO vault_sync_acknowledgements(space, token_id, through) VALUES (\(ByteBuffer(bytes: space.bytes)), \(tokenID), \(Int64(clamping: through)))
            ON CONFLICT (space, token_id) DO UPDATE SET through = GREATEST(vault_sync_acknowledgements.through, EXCLUDED.through), updated_at = now()
            """, logger: logger)
    }

    public func ping() async throws {
        try await client.query("SELECT 1", logger: logger)
    }

    public func listenForAppends(_ onAppend: @escaping @Sendable (SyncSpaceID, UInt64) async -> Void) async throws {
        let logger = self.logger
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                for try await notification in notifications {
                    guard let (space, head) = Self.parseNotification(notification.payload) else {
                        logger.warning("ignored a malformed append notification")
                        continue
                    }
                    await onAppend(space, head)
                }
            }
        }
    }

    static func parseNotification(_ payload: String) -> (SyncSpaceID, UInt64)? {
        let parts = payload.split(separator: ":")
        guard parts.count == 2, parts[0].count == 32, let head = UInt64(parts[1]) else { return nil }
        var bytes: [UInt8] = []
        var index = parts[0].startIndex
        while index < parts[0].endIndex {
            let next = parts[0].index(index, offsetBy: 2)
            guard let byte = UInt8(parts[0][index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        guard let space = SyncSpaceID(bytes: bytes) else { return nil }
        return (space, head)
    }

    private struct StoredKey: Hashable {
        let device: UInt64
        let sequence: UInt64
    }
}
