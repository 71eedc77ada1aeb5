import GRDB

extension AppDatabase {
    /// What a link remembers about how it was made (issue 22, items 6 and 9).
    ///
    /// `email_vouched`: whether anyone had proven the account's address when the link was made —
    /// Gatehouse (the account was verified) or a live provider (it vouched for that same address).
    /// A link made on an unproven claim ends when the owner proves the address. Links from before
    /// count as vouched when their account is verified now: an account still unverified has never
    /// had its address proven, so its links are exactly the ones a pre-hijacker could hold.
    ///
    /// `test_provider`: made at the built-in test provider's chooser, where anyone types any
    /// subject. Such a link matches only test sign-ins, a live link only live ones. Links from
    /// before count as test links when the test provider ever issued that (provider, subject) — it
    /// keeps every identity its chooser made — else as live ones.
    static func registerIdentityMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-external-auths-vouched-and-test-provider") { db in
            try db.execute(
                sql: """
                    ALTER TABLE external_auths
                        ADD COLUMN email_vouched BOOLEAN NOT NULL DEFAULT 0 CHECK (email_vouched IN (0, 1));
                    ALTER TABLE external_auths
                        ADD COLUMN test_provider BOOLEAN NOT NULL DEFAULT 0 CHECK (test_provider IN (0, 1));
                    UPDATE external_auths SET email_vouched = 1
                    WHERE user_id IN (SELECT id FROM users WHERE verified = 1);
                    UPDATE external_auths SET test_provider = 1
                    WHERE EXISTS (
                        SELECT 1 FROM test_idp_accounts t
                        WHERE t.provider = external_auths.provider AND t.subject = external_auths.subject);
                    """)
        }
    }
}
