import GRDB

extension AppDatabase {
    /// The console's user count at a million accounts (issue 13): `count(*)` over `users` reads every
    /// row of an index (~80 ms at 1,000,000), so the number of accounts is kept in a one-row table
    /// by triggers, and an unfiltered list reads it instead of counting.
    static func registerUserListMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-userlist-count") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user_count (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        n INTEGER NOT NULL CHECK (n >= 0)
                    );
                    INSERT INTO user_count (id, n) SELECT 1, count(*) FROM users;
                    CREATE TRIGGER user_count_insert AFTER INSERT ON users BEGIN
                        UPDATE user_count SET n = n + 1 WHERE id = 1;
                    END;
                    CREATE TRIGGER user_count_delete AFTER DELETE ON users BEGIN
                        UPDATE user_count SET n = n - 1 WHERE id = 1;
                    END;
                    """)
        }
    }
}
