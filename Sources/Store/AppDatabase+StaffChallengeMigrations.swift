import GRDB

extension AppDatabase {
    /// Superusers' pending second steps join people's in `mfa_challenges` (issue 45): each row is
    /// held by exactly one of a person (`user_id`) or a superuser (`superuser_id`, deleted with the
    /// superuser), so one owner (`SecondFactorKeys`) counts the tries and the holder's wrong steps of
    /// both. People's pending steps are copied; superusers' lived in a signed cookie and the rate
    /// ledger, and a step pending across the upgrade is asked again.
    static func registerStaffChallengeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s19-one-second-step-store") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mfa_challenges_s19 (
                        id_hash TEXT PRIMARY KEY NOT NULL CHECK (length(id_hash) = 64),
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        superuser_id TEXT REFERENCES superusers(id) ON DELETE CASCADE,
                        first_method TEXT NOT NULL CHECK (length(first_method) > 0),
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        consumed_at DATETIME,
                        CHECK ((user_id IS NULL) != (superuser_id IS NULL))
                    );
                    INSERT INTO mfa_challenges_s19 (id_hash, user_id, first_method, attempts, created_at, expires_at, consumed_at)
                    SELECT id_hash, user_id, first_method, attempts, created_at, expires_at, consumed_at FROM mfa_challenges;
                    DROP TABLE mfa_challenges;
                    ALTER TABLE mfa_challenges_s19 RENAME TO mfa_challenges;
                    CREATE INDEX mfa_challenges_user_created ON mfa_challenges(user_id, created_at);
                    CREATE INDEX mfa_challenges_superuser_created ON mfa_challenges(superuser_id, created_at)
                        WHERE superuser_id IS NOT NULL;
                    """)
        }
    }
}
