import GRDB

extension AppDatabase {
    /// Tables for the staff console: superusers and their own sessions, kept apart from user
    /// sessions so a user's cookie or token can never reach the console.
    static func registerConsoleMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-console-superusers") { db in
            try db.execute(
                sql: """
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
            try db.execute(
                sql: """
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

        // Console search over email and name as a trigram index, so "contains" searches stay fast at
        // 100,000 users instead of scanning every row (https://sqlite.org/fts5.html#the_trigram_tokenizer).
        // FTS5 keeps its own stable integer keys; `users_search_keys` maps users to them, because the
        // users table's rowid is not stable across VACUUM.
        migrator.registerMigration("v2-console-user-search") { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE users_search USING fts5(user_id UNINDEXED, text, tokenize = 'trigram');
                    CREATE TABLE users_search_keys (
                        user_id TEXT PRIMARY KEY NOT NULL,
                        search_rowid INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
                        INSERT INTO users_search (user_id, text)
                            VALUES (new.id, new.email_normalized || ' ' || lower(coalesce(json_extract(new.profile, '$.name'), '')));
                        INSERT INTO users_search_keys (user_id, search_rowid) VALUES (new.id, last_insert_rowid());
                    END;
                    CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
                        DELETE FROM users_search WHERE rowid = (SELECT search_rowid FROM users_search_keys WHERE user_id = old.id);
                        DELETE FROM users_search_keys WHERE user_id = old.id;
                    END;
                    CREATE TRIGGER users_search_update AFTER UPDATE OF id, email_normalized, profile ON users BEGIN
                        DELETE FROM users_search WHERE rowid = (SELECT search_rowid FROM users_search_keys WHERE user_id = old.id);
                        DELETE FROM users_search_keys WHERE user_id = old.id;
                        INSERT INTO users_search (user_id, text)
                            VALUES (new.id, new.email_normalized || ' ' || lower(coalesce(json_extract(new.profile, '$.name'), '')));
                        INSERT INTO users_search_keys (user_id, search_rowid) VALUES (new.id, last_insert_rowid());
                    END;
                    """)
            // Index the accounts that already exist.
            let ids = try String.fetchAll(db, sql: "SELECT id FROM users")
            for id in ids {
                try db.execute(
                    sql: """
                        INSERT INTO users_search (user_id, text)
                            SELECT id, email_normalized || ' ' || lower(coalesce(json_extract(profile, '$.name'), '')) FROM users WHERE id = ?
                        """, arguments: [id])
                try db.execute(
                    sql: "INSERT INTO users_search_keys (user_id, search_rowid) VALUES (?, ?)",
                    arguments: [id, db.lastInsertedRowID])
            }
        }
    }
}
