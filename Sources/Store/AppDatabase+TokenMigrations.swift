import GRDB

extension AppDatabase {
    /// A verification link or code lives only while its account waits for verification: whatever
    /// verifies the account — the code or link itself, a password reset, a passwordless sign-in, an
    /// email change, staff — spends the rest in the same transaction (a trigger, so no code path can
    /// forget it; stamped with the change's `updated_at`, the writer's clock). An old link then never signs anyone in (issue 22, item 3). Tokens left live on
    /// accounts already verified are spent once here.
    static func registerTokenMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-verification-ends-with-verifying") { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER verification_tokens_end_when_verified AFTER UPDATE OF verified ON users
                    WHEN new.verified = 1 BEGIN
                        UPDATE verification_tokens SET consumed_at = new.updated_at
                        WHERE user_id = new.id AND purpose = 'verify_email' AND consumed_at IS NULL;
                    END;
                    UPDATE verification_tokens SET consumed_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
                    WHERE purpose = 'verify_email' AND consumed_at IS NULL
                      AND user_id IN (SELECT id FROM users WHERE verified = 1);
                    """)
        }
    }
}
