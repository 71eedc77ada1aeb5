import GRDB

extension AppDatabase {
    /// Migrations from the security pass (issue 9), appended after every earlier one: sealed backend
    /// tokens that die with their session, rate-limit events that survive a restart, and the ids of
    /// identity tokens already used.
    static func registerSecurityMigrations(_ migrator: inout DatabaseMigrator) {
        // A remote backend's token lives only as long as the browser session it belongs to: any
        // revocation (sign-out, "sign out everywhere", disable, password change) deletes it. Tokens
        // stored before are plain text: they are dropped (reads fall back to the backend's admin
        // side), and from now on the web layer stores them sealed.
        migrator.registerMigration("v3-security-sealed-credentials") { db in
            try db.execute(
                sql: """
                    DELETE FROM session_credentials;
                    CREATE TRIGGER session_credentials_die_with_their_session
                    AFTER UPDATE OF revoked_at ON sessions
                    WHEN NEW.revoked_at IS NOT NULL
                    BEGIN
                        DELETE FROM session_credentials WHERE session_id = NEW.id;
                    END;
                    """)
        }

        migrator.registerMigration("v3-security-rate-limit-events") { db in
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

        migrator.registerMigration("v3-security-used-token-ids") { db in
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
