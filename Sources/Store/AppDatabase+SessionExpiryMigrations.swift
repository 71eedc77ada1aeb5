import GRDB

extension AppDatabase {
    /// Webhooks' `session.ended` for sessions that expire (issue 48). `webhook_session_sweeps`
    /// holds how far the delivery worker's sweep has reported expiries (one row), so each session
    /// with a fixed end is reported once, after a restart too; `sessions_fixed_end` finds the next
    /// one to lapse: a person's live session without a refresh token (pages, PocketBase's and
    /// Descope's APIs, impersonation), whose `expires_at` is its end.
    static func registerSessionExpiryMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("w2-webhook-session-expiry") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhook_session_sweeps (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        swept_until DATETIME NOT NULL
                    );
                    CREATE INDEX sessions_fixed_end ON sessions(expires_at)
                        WHERE user_id IS NOT NULL AND refresh_token_hash IS NULL AND revoked_at IS NULL;
                    """)
        }
    }
}
