import GRDB

extension AppDatabase {
    /// The client core's tables, appended after the v1 schema (issue 3).
    static func registerClientCoreMigrations(in migrator: inout DatabaseMigrator) {
        // Refresh tokens already rotated away from an API session. Presenting one again is token
        // theft or a replay: the session (the whole token family) is revoked.
        migrator.registerMigration("v2-client-core-rotated-refresh-tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE rotated_refresh_tokens (
                        token_hash TEXT PRIMARY KEY NOT NULL CHECK (length(token_hash) > 0),
                        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        rotated_at DATETIME NOT NULL
                    );
                    CREATE INDEX rotated_refresh_tokens_session ON rotated_refresh_tokens(session_id);
                    """)
        }

        migrator.registerMigration("v2-client-core-session-credentials") { db in
            try db.execute(
                sql: """
                    CREATE TABLE session_credentials (
                        session_id INTEGER PRIMARY KEY NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        credential TEXT NOT NULL CHECK (length(credential) > 0)
                    );
                    """)
        }
    }
}
