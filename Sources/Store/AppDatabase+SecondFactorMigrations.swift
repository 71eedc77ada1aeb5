import GRDB

extension AppDatabase {
    /// One store of authenticator keys and recovery codes for people and superusers (issue 45): the
    /// superusers' columns (`totp_*` on `superusers`) and their `superuser_recovery_codes` move into
    /// `totp_credentials` and `recovery_codes`, each row held by exactly one of a person
    /// (`user_id`) or a superuser (`superuser_id`, deleted with the superuser), as `sessions` and
    /// `passkeys` are. Every sealed key, replay step and recovery-code hash is copied as it was, so a
    /// superuser's authenticator app and unused codes go on working.
    static func registerSecondFactorMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s18-one-second-factor-store") { db in
            try db.execute(
                sql: """
                    CREATE TABLE totp_credentials_s18 (
                        id INTEGER PRIMARY KEY,
                        user_id TEXT UNIQUE REFERENCES users(id) ON DELETE CASCADE,
                        superuser_id TEXT UNIQUE REFERENCES superusers(id) ON DELETE CASCADE,
                        secret_sealed BLOB CHECK (secret_sealed IS NULL OR length(secret_sealed) > 0),
                        pending_secret_sealed BLOB CHECK (pending_secret_sealed IS NULL OR length(pending_secret_sealed) > 0),
                        pending_created_at DATETIME,
                        enabled BOOLEAN NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
                        last_used_step INTEGER,
                        enabled_at DATETIME,
                        CHECK (enabled = 0 OR secret_sealed IS NOT NULL),
                        CHECK ((user_id IS NULL) != (superuser_id IS NULL))
                    );
                    INSERT INTO totp_credentials_s18 (user_id, secret_sealed, pending_secret_sealed, pending_created_at,
                                                      enabled, last_used_step, enabled_at)
                    SELECT user_id, secret_sealed, pending_secret_sealed, pending_created_at,
                           enabled, last_used_step, enabled_at
                    FROM totp_credentials;
                    INSERT INTO totp_credentials_s18 (superuser_id, secret_sealed, pending_secret_sealed, pending_created_at,
                                                      enabled, last_used_step, enabled_at)
                    SELECT id, totp_secret_sealed, totp_pending_sealed, totp_pending_created_at,
                           totp_secret_sealed IS NOT NULL, totp_last_used_step,
                           CASE WHEN totp_secret_sealed IS NOT NULL THEN updated_at END
                    FROM superusers
                    WHERE totp_secret_sealed IS NOT NULL OR totp_pending_sealed IS NOT NULL;
                    DROP TABLE totp_credentials;
                    ALTER TABLE totp_credentials_s18 RENAME TO totp_credentials;

                    CREATE TABLE recovery_codes_s18 (
                        id INTEGER PRIMARY KEY,
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        superuser_id TEXT REFERENCES superusers(id) ON DELETE CASCADE,
                        code_hash TEXT NOT NULL CHECK (length(code_hash) = 64),
                        created_at DATETIME NOT NULL,
                        used_at DATETIME,
                        UNIQUE (user_id, code_hash),
                        UNIQUE (superuser_id, code_hash),
                        CHECK ((user_id IS NULL) != (superuser_id IS NULL))
                    );
                    INSERT INTO recovery_codes_s18 (id, user_id, code_hash, created_at, used_at)
                    SELECT id, user_id, code_hash, created_at, used_at FROM recovery_codes;
                    INSERT INTO recovery_codes_s18 (superuser_id, code_hash, created_at, used_at)
                    SELECT superuser_id, code_hash, created_at, used_at FROM superuser_recovery_codes;
                    DROP TABLE recovery_codes;
                    ALTER TABLE recovery_codes_s18 RENAME TO recovery_codes;
                    DROP TABLE superuser_recovery_codes;

                    ALTER TABLE superusers DROP COLUMN totp_secret_sealed;
                    ALTER TABLE superusers DROP COLUMN totp_pending_sealed;
                    ALTER TABLE superusers DROP COLUMN totp_pending_created_at;
                    ALTER TABLE superusers DROP COLUMN totp_last_used_step;
                    """)
        }
    }
}
