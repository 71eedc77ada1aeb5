import GRDB

extension AppDatabase {
    /// Superusers on the people's TOTP rules (issue 23, item 5): when a superuser's pending
    /// enrolment key was made (it expires like an account's), and their single-use recovery codes,
    /// kept as keyed hashes like `recovery_codes`.
    static func registerSuperuserTOTPMigrations(_ migrator: inout DatabaseMigrator) {
        // A pending key from before this step has no time: it counts as expired, so the next
        // enrolment shows a fresh key. A code is found by (superuser, hash), its key: no rowid needed.
        migrator.registerMigration("v10-superuser-totp-rules") { db in
            try db.execute(
                sql: """
                    ALTER TABLE superusers ADD COLUMN totp_pending_created_at DATETIME;
                    CREATE TABLE superuser_recovery_codes (
                        superuser_id TEXT NOT NULL REFERENCES superusers(id) ON DELETE CASCADE,
                        code_hash TEXT NOT NULL CHECK (length(code_hash) = 64),
                        created_at DATETIME NOT NULL,
                        used_at DATETIME,
                        PRIMARY KEY (superuser_id, code_hash)
                    ) WITHOUT ROWID;
                    """)
        }
    }
}
