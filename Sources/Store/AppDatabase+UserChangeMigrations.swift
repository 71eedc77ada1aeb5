import GRDB

extension AppDatabase {
    /// How many account changes `user_changes` keeps: enough for any reader that polls while
    /// people use the server; a bulk seed or reset outruns it (a reader then resumes at the oldest
    /// kept change).
    public static let keptUserChanges = 10_000

    /// The account-change log (`user_changes`): every insert, update and delete of a `users` row,
    /// written by triggers in the same transaction, so a change is logged whichever code path or
    /// process (`gatehouse users seed` on the same file) made it, and only if it committed. Each
    /// keeps the row as the change left it (without the password hash), so a reader sees every
    /// state, not only the latest; a bulk insert logs its rows without (`BulkUserIndexing`), and a
    /// reader takes those as they are now. Every thousandth change drops the changes beyond
    /// `keptUserChanges` in one range delete.
    static func registerUserChangeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6-user-changes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user_changes (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id TEXT NOT NULL,
                        action TEXT NOT NULL CHECK (action IN ('create', 'update', 'delete')),
                        record TEXT CHECK (CASE WHEN record IS NULL THEN action = 'create' ELSE json_valid(record) END)
                    );
                    CREATE TRIGGER user_changes_insert AFTER INSERT ON users BEGIN
                        INSERT INTO user_changes (user_id, action, record) VALUES (new.id, 'create', \(loggedRow("new.")));
                    END;
                    CREATE TRIGGER user_changes_update AFTER UPDATE ON users BEGIN
                        INSERT INTO user_changes (user_id, action, record) VALUES (new.id, 'update', \(loggedRow("new.")));
                    END;
                    CREATE TRIGGER user_changes_delete AFTER DELETE ON users BEGIN
                        INSERT INTO user_changes (user_id, action, record) VALUES (old.id, 'delete', \(loggedRow("old.")));
                    END;
                    CREATE TRIGGER user_changes_keep AFTER INSERT ON user_changes WHEN new.seq % 1000 = 0 BEGIN
                        DELETE FROM user_changes WHERE seq <= new.seq - \(keptUserChanges);
                    END;
                    """)
        }
    }

    /// A `users` row as the JSON `user_changes.record` keeps (every column but the password
    /// hash); `prefix` is `new.` or `old.` in a trigger, empty in a query over `users`.
    static func loggedRow(_ prefix: String) -> String {
        "json_object(" + loggedColumns.map { "'\($0)', \(prefix)\($0)" }.joined(separator: ", ") + ")"
    }

    /// The `users` columns a logged change keeps.
    static let loggedColumns = [
        "id", "email", "email_normalized", "verified", "profile", "disabled", "created_at", "updated_at"
    ]
}
