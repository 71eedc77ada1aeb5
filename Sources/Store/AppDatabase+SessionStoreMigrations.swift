import GRDB

extension AppDatabase {
    /// One session store for people and superusers (issue 23): `sessions` holds console sessions
    /// too, each row belonging to exactly one of a person (`user_id`) or a superuser
    /// (`superuser_id`, deleted with the superuser), so no query about a person's sessions can
    /// match a superuser's row, nor the reverse. SQLite cannot relax `user_id`'s NOT NULL in place,
    /// so the table is rebuilt (https://sqlite.org/lang_altertable.html#otheralter; GRDB runs
    /// migrations with foreign keys off and checks them before committing), keeping every id so
    /// `session_credentials` and `rotated_refresh_tokens` still point at their rows.
    ///
    /// Console tokens were hashed without a kind's prefix; they are now hashed under
    /// `SessionKind.console`, so the old rows are kept, revoked, for the record: superusers sign in
    /// again once after the upgrade.
    static func registerSessionStoreMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-one-session-store") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions_v11 (
                        id INTEGER PRIMARY KEY,
                        token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) > 0),
                        refresh_token_hash TEXT UNIQUE,
                        user_id TEXT CHECK (length(user_id) > 0),
                        superuser_id TEXT REFERENCES superusers(id) ON DELETE CASCADE,
                        user_agent TEXT,
                        ip TEXT,
                        created_at DATETIME NOT NULL,
                        last_used_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        revoked_at DATETIME,
                        impersonator TEXT,
                        CHECK ((user_id IS NULL) != (superuser_id IS NULL))
                    );
                    INSERT INTO sessions_v11 (id, token_hash, refresh_token_hash, user_id, user_agent, ip,
                                              created_at, last_used_at, expires_at, revoked_at, impersonator)
                    SELECT id, token_hash, refresh_token_hash, user_id, user_agent, ip,
                           created_at, last_used_at, expires_at, revoked_at, impersonator
                    FROM sessions;
                    INSERT INTO sessions_v11 (token_hash, superuser_id, user_agent, ip,
                                              created_at, last_used_at, expires_at, revoked_at)
                    SELECT 'console-before-v11:' || token_hash, superuser_id, user_agent, ip,
                           created_at, last_used_at, expires_at,
                           coalesce(revoked_at, strftime('%Y-%m-%d %H:%M:%f', 'now'))
                    FROM console_sessions;
                    DROP TABLE sessions;
                    ALTER TABLE sessions_v11 RENAME TO sessions;
                    CREATE INDEX sessions_user ON sessions(user_id);
                    CREATE INDEX sessions_superuser ON sessions(superuser_id) WHERE superuser_id IS NOT NULL;
                    CREATE TRIGGER session_credentials_die_with_their_session
                    AFTER UPDATE OF revoked_at ON sessions
                    WHEN NEW.revoked_at IS NOT NULL
                    BEGIN
                        DELETE FROM session_credentials WHERE session_id = NEW.id;
                    END;
                    DROP TABLE console_sessions;
                    """)
        }
    }
}
