import GRDB

extension AppDatabase {
    /// Two-step sign-in (issue 10): each account's authenticator key (sealed with a key from the key
    /// file, never readable from this file alone), its single-use recovery codes (keyed hashes), the
    /// pending second steps of sign-ins, and the superusers' own authenticator keys.
    static func registerTOTPMigrations(_ migrator: inout DatabaseMigrator) {
        // One row per account that has begun or finished enrolment. `pending_secret_sealed` is a key
        // shown but not yet confirmed; `secret_sealed` is set only when `enabled`. `last_used_step`
        // is the newest RFC 6238 step a code was accepted for: a code is refused unless its step is
        // greater, so one code never works twice.
        migrator.registerMigration("v4-totp-credentials") { db in
            try db.execute(
                sql: """
                    CREATE TABLE totp_credentials (
                        user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        secret_sealed BLOB CHECK (secret_sealed IS NULL OR length(secret_sealed) > 0),
                        pending_secret_sealed BLOB CHECK (pending_secret_sealed IS NULL OR length(pending_secret_sealed) > 0),
                        pending_created_at DATETIME,
                        enabled BOOLEAN NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
                        last_used_step INTEGER,
                        enabled_at DATETIME,
                        CHECK (enabled = 0 OR secret_sealed IS NOT NULL)
                    );
                    CREATE TABLE recovery_codes (
                        id INTEGER PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        code_hash TEXT NOT NULL CHECK (length(code_hash) = 64),
                        created_at DATETIME NOT NULL,
                        used_at DATETIME,
                        UNIQUE (user_id, code_hash)
                    );
                    """)
        }

        // A sign-in that passed its first step and waits for the second: the id is a random token
        // kept as its keyed hash; `attempts` is claimed before a code is compared (as for mailed
        // codes), and `consumed_at` is set once, by the one completion that wins.
        migrator.registerMigration("v4-totp-mfa-challenges") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mfa_challenges (
                        id_hash TEXT PRIMARY KEY NOT NULL CHECK (length(id_hash) = 64),
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        first_method TEXT NOT NULL CHECK (length(first_method) > 0),
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        consumed_at DATETIME
                    );
                    CREATE INDEX mfa_challenges_user_created ON mfa_challenges(user_id, created_at);
                    """)
        }

        migrator.registerMigration("v4-totp-superusers") { db in
            try db.execute(
                sql: """
                    ALTER TABLE superusers ADD COLUMN totp_secret_sealed BLOB;
                    ALTER TABLE superusers ADD COLUMN totp_pending_sealed BLOB;
                    ALTER TABLE superusers ADD COLUMN totp_last_used_step INTEGER;
                    """)
        }
    }
}
