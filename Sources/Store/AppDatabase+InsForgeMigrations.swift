import GRDB

extension AppDatabase {
    /// InsForge's OTP sign-in (issue 12) names the account by address only (`{email, otp}`), where the
    /// seam signs in by the id its request returned: the InsForge API keeps the newest id per address.
    static func registerInsForgeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-insforge-otp-requests") { db in
            try db.execute(
                sql: """
                    CREATE TABLE insforge_otp_requests (
                        email_hash TEXT PRIMARY KEY NOT NULL CHECK (length(email_hash) > 0),
                        otp_id TEXT NOT NULL CHECK (length(otp_id) > 0),
                        expires_at DATETIME NOT NULL
                    );
                    CREATE INDEX insforge_otp_requests_expires_at ON insforge_otp_requests(expires_at);
                    """)
        }
    }
}
