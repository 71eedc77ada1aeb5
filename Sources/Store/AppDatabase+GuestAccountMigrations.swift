import GRDB

extension AppDatabase {
    /// Guest accounts (issue 46: the Rownd plugin's `guest` route): an account made with no
    /// address of its own, until a sign-up with its session upgrades it; dropped with the account.
    static func registerGuestAccountMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s20-guest-accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE guest_accounts (
                        user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        created_at DATETIME NOT NULL
                    );
                    """)
        }
    }
}
