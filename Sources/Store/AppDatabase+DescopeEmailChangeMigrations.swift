import GRDB

extension AppDatabase {
    /// Descope's `update/email` (issue 27): a change whose asker's live session was the proof
    /// (`proof = 'session'`) is confirmed by the mailed code or link alone; every other change
    /// (`'password'`, the pages' and the PocketBase API's) still asks for the account's password.
    static func registerDescopeEmailChangeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("descope-emailchange-proof") { db in
            try db.execute(
                sql: """
                    ALTER TABLE email_change_requests
                    ADD COLUMN proof TEXT NOT NULL DEFAULT 'password' CHECK (proof IN ('password', 'session'))
                    """)
        }
    }
}
