import GRDB

extension AppDatabase {
    /// Issue 9 (secrets at rest, limits): rate-limit events that survive a restart, and the ids
    /// of identity tokens already used.
    static func registerDatasecMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-datasec-rate-limit-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE rate_limit_events (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL CHECK (length(key) > 0),
                        at DATETIME NOT NULL
                    );
                    CREATE INDEX rate_limit_events_key_at ON rate_limit_events(key, at);
                    CREATE INDEX rate_limit_events_at ON rate_limit_events(at);
                    """)
        }

        migrator.registerMigration("v5-datasec-used-token-ids") { db in
            try db.execute(
                sql: """
                    CREATE TABLE used_token_ids (
                        id_hash TEXT PRIMARY KEY NOT NULL CHECK (length(id_hash) = 64),
                        expires_at DATETIME NOT NULL
                    );
                    CREATE INDEX used_token_ids_expires_at ON used_token_ids(expires_at);
                    """)
        }
    }
}
