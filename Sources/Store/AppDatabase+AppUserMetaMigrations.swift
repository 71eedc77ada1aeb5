import GRDB

extension AppDatabase {
    /// What an app keeps on an account apart from its profile (issue 46: the Rownd SDK's `meta`),
    /// one JSON object per account, dropped with the account.
    static func registerAppUserMetaMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s19-app-user-meta") { db in
            try db.execute(
                sql: """
                    CREATE TABLE app_user_meta (
                        user_id TEXT PRIMARY KEY NOT NULL CHECK (length(user_id) > 0),
                        meta TEXT NOT NULL CHECK (json_valid(meta) AND json_type(meta) = 'object'),
                        updated_at DATETIME NOT NULL
                    );
                    """)
        }
    }
}
