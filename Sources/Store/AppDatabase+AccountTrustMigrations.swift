import GRDB

extension AppDatabase {
    /// Account trust (issue 42): what spending a verification token keeps of what its account held
    /// while unproven (`AddressProof`). `sign_up`: the sign-up's own mail keeps the credentials the
    /// account was made with; `app`: a token an app's own backend asked for without naming a
    /// session (SuperTokens' `recipe/user/email/verify/token`) keeps them and the sessions live when
    /// it was made; `none` (a resend anyone may ask for, staff's) keeps nothing. Tokens live at the
    /// upgrade keep what they kept before: the credentials.
    ///
    /// `provisional_accounts`: the accounts a sign-up made whose address nobody has proven since —
    /// what they hold is provisional until the first proof deletes the row. An account staff mark
    /// unverified is not one (what it holds was made while proven). Accounts unverified at the
    /// upgrade count as such. A table of its own, so marking and proving write no account change.
    static func registerAccountTrustMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s17-verification-token-binding") { db in
            try db.execute(
                sql: """
                    ALTER TABLE verification_tokens
                        ADD COLUMN binding TEXT NOT NULL DEFAULT 'none' CHECK (binding IN ('none', 'sign_up', 'app'));
                    UPDATE verification_tokens SET binding = 'sign_up'
                    WHERE purpose = 'verify_email' AND consumed_at IS NULL;
                    CREATE TABLE provisional_accounts (
                        user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE
                    ) WITHOUT ROWID;
                    INSERT INTO provisional_accounts (user_id) SELECT id FROM users WHERE verified = 0;
                    """)
        }
    }
}
