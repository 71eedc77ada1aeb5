import GRDB

extension AppDatabase {
    /// Tables for the staff console: superusers and their own sessions, kept apart from user
    /// sessions so a user's cookie or token can never reach the console.
    static func registerConsoleMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-console-superusers") { db in
            try db.execute(sql: """
                CREATE TABLE superusers (
                    id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
                    email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
                    email_normalized TEXT NOT NULL UNIQUE
                        CHECK (length(email_normalized) BETWEEN 3 AND 254 AND email_normalized = lower(email_normalized)),
                    password_hash TEXT NOT NULL CHECK (length(password_hash) > 0),
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE console_sessions (
                    id INTEGER PRIMARY KEY,
                    token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) > 0),
                    superuser_id TEXT NOT NULL REFERENCES superusers(id) ON DELETE CASCADE,
                    user_agent TEXT,
                    ip TEXT,
                    created_at DATETIME NOT NULL,
                    last_used_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    revoked_at DATETIME
                );
                CREATE INDEX console_sessions_superuser ON console_sessions(superuser_id);
                CREATE INDEX audit_events_actor ON audit_events(actor);
                """)
        }

        // Tags mark test users (seeded batches, imports) for any backend, so user_id has no
        // foreign key; deleting an embedded user deletes its tags in the same transaction.
        migrator.registerMigration("v2-console-user-tags") { db in
            try db.execute(sql: """
                CREATE TABLE user_tags (
                    user_id TEXT NOT NULL CHECK (length(user_id) > 0),
                    tag TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 64),
                    created_at DATETIME NOT NULL,
                    PRIMARY KEY (user_id, tag)
                ) WITHOUT ROWID;
                CREATE INDEX user_tags_tag ON user_tags(tag, user_id);
                CREATE INDEX users_created ON users(created_at, id);
                """)
        }
    }
}
