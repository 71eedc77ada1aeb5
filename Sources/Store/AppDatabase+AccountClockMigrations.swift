import GRDB

extension AppDatabase {
    /// Account clocks (issue 47): how far a test suite moved one account's time ahead
    /// (`POST /_/api/test/clock`), kept so a restart does not bring back the sessions and codes
    /// that ended in the account's time. No foreign key: a remote backend's accounts are not in `users`.
    static func registerAccountClockMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s19-account-clocks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE account_clocks (
                        user_id TEXT PRIMARY KEY NOT NULL CHECK (length(user_id) > 0),
                        offset_seconds REAL NOT NULL CHECK (offset_seconds >= 0),
                        updated_at DATETIME NOT NULL
                    );
                    """)
        }
    }
}
