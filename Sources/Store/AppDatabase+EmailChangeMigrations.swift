import GRDB

extension AppDatabase {
    /// Email change (issue 10): the address a `change_email` token moves its account to. One row
    /// per token, gone with it; the address is checked free again when the change is confirmed
    /// (`users.email_normalized` is UNIQUE, so a race ends in a refusal, not two accounts).
    static func registerEmailChangeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-emailchange-requests") { db in
            try db.execute(
                sql: """
                    CREATE TABLE email_change_requests (
                        token_id INTEGER PRIMARY KEY NOT NULL REFERENCES verification_tokens(id) ON DELETE CASCADE,
                        new_email TEXT NOT NULL CHECK (length(new_email) BETWEEN 3 AND 254),
                        new_email_normalized TEXT NOT NULL
                            CHECK (length(new_email_normalized) BETWEEN 3 AND 254
                                   AND new_email_normalized = lower(new_email_normalized))
                    )
                    """)
        }
    }
}
