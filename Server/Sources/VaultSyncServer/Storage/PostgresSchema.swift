import Logging
import PostgresNIO

/// The server's own tables, created and upgraded at start (under an advisory
/// lock, so processes starting together migrate once). Each version is a list
/// of statements applied in one transaction with the version number.
enum PostgresSchema {
    static let versions: [[PostgresQuery]] = [
        // 1: spaces, the log, tokens, acknowledgements.
        [
            """
            CREATE TABLE vault_sync_spaces (
                space bytea PRIMARY KEY,
                head bigint NOT NULL DEFAULT 0,
                total_bytes bigint NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE vault_sync_log (
                space bytea NOT NULL,
                server_sequence bigint NOT NULL,
                device bigint NOT NULL,
                sequence bigint NOT NULL,
                envelope bytea NOT NULL,
                end_offset bigint NOT NULL,
                stored_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (space, server_sequence),
                UNIQUE (space, device, sequence))
            """,
            """
            CREATE TABLE vault_sync_tokens (
                id bigserial PRIMARY KEY,
                digest bytea NOT NULL UNIQUE,
                space_name text NOT NULL,
                device_label text NOT NULL,
                issued_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz)
            """,
            "CREATE INDEX vault_sync_tokens_device ON vault_sync_tokens(space_name, device_label)",
            """
            CREATE TABLE vault_sync_acknowledgements (
                space bytea NOT NULL,
                token_id bigint NOT NULL REFERENCES vault_sync_tokens(id),
                through bigint NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (space, token_id))
            """,
        ],
        // 2: which device label uploads for each author device id of a space (the first
        // token to upload a device's change sets claims it; no other device's token can).
        [
            """
            CREATE TABLE vault_sync_devices (
                space bytea NOT NULL,
                device bigint NOT NULL,
                device_label text NOT NULL,
                bound_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (space, device))
            """,
        ],
        // 3: signed spaces. A device registers its public keys (never secrets); a space is
        // marked signed by its first signed envelope, and refuses unsigned ones after it.
        [
            "ALTER TABLE vault_sync_devices ADD COLUMN signing_key bytea, ADD COLUMN box_key bytea",
            "ALTER TABLE vault_sync_spaces ADD COLUMN signed boolean NOT NULL DEFAULT false",
        ],
    ]

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("CREATE TABLE IF NOT EXISTS vault_sync_schema (version integer NOT NULL)", logger: logger)
        var current = 0
        for try await version in try await connection.query("SELECT max(version) FROM vault_sync_schema", logger: logger).decode(Int?.self) {
            current = version ?? 0
        }
        guard current <= versions.count else {
            throw SyncServerError.store("the database holds sync schema version \(current), newer than this server's \(versions.count): run the newer server")
        }
        for (index, statements) in versions.enumerated() where index + 1 > current {
            let version = index + 1
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in statements { try await transaction.query(statement, logger: logger) }
                try await transaction.query("INSERT INTO vault_sync_schema(version) VALUES (\(version))", logger: logger)
            }
            logger.info("migrated the sync tables", metadata: ["version": "\(version)"])
        }
    }
}
