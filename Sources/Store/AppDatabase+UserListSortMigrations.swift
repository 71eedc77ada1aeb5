import GRDB

extension AppDatabase {
    /// The console's users list sorted by any column at a million accounts (issue 25): an index per
    /// sort the list offers beyond `users_created` and the email's own UNIQUE index, and each
    /// person's last sign-in kept in a table of its own (not a `users` column: a sign-in is not an
    /// account change, and every `users` update is logged to `user_changes` for realtime).
    static func registerUserListSortMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s16-user-list-sort") { db in
            try db.execute(
                sql: """
                    CREATE INDEX users_name ON users(lower(json_extract(profile, '$.name')), id);
                    CREATE INDEX users_status ON users(disabled, verified DESC, created_at DESC, id DESC);
                    CREATE TABLE user_last_sign_ins (
                        user_id TEXT PRIMARY KEY NOT NULL CHECK (length(user_id) > 0),
                        at DATETIME NOT NULL
                    ) WITHOUT ROWID;
                    INSERT INTO user_last_sign_ins (user_id, at)
                        SELECT user_id, max(created_at) FROM sessions
                        WHERE user_id IS NOT NULL AND impersonator IS NULL GROUP BY user_id;
                    CREATE INDEX user_last_sign_ins_at ON user_last_sign_ins(at, user_id);
                    CREATE TRIGGER user_last_sign_ins_session AFTER INSERT ON sessions
                    WHEN new.user_id IS NOT NULL AND new.impersonator IS NULL BEGIN
                        INSERT INTO user_last_sign_ins (user_id, at) VALUES (new.user_id, new.created_at)
                        ON CONFLICT (user_id) DO UPDATE SET at = max(at, excluded.at);
                    END;
                    """)
        }
    }
}
