import GRDB

extension AppDatabase {
    /// Passkeys (issue 24): each person's WebAuthn credentials, and the challenges of ceremonies
    /// under way. A credential id is unique across accounts (an authenticator makes a fresh one per
    /// registration); the key is kept as the authenticator encoded it (COSE). A challenge is found
    /// by its keyed hash, spent by deleting it, and is dead after `expires_at`. Superusers' passkeys
    /// share the table since `s16-superuser-passkeys`; their challenges are told apart by what
    /// their hash is bound to (Accounts' `StaffPasskeys`).
    static func registerPasskeyMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v-passkeys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE passkeys (
                        id INTEGER PRIMARY KEY,
                        credential_id BLOB NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1023),
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 2048),
                        sign_count INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
                        transports TEXT NOT NULL CHECK (json_valid(transports) AND json_type(transports) = 'array'),
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                        backup_eligible BOOLEAN NOT NULL CHECK (backup_eligible IN (0, 1)),
                        backed_up BOOLEAN NOT NULL CHECK (backed_up IN (0, 1)),
                        created_at DATETIME NOT NULL,
                        last_used_at DATETIME
                    );
                    CREATE INDEX passkeys_user ON passkeys(user_id, id);
                    CREATE TABLE passkey_challenges (
                        challenge_hash TEXT PRIMARY KEY NOT NULL CHECK (length(challenge_hash) = 64),
                        purpose TEXT NOT NULL CHECK (purpose IN ('register', 'authenticate')),
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        expires_at DATETIME NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        // Superusers' own passkeys for the console sign-in (session 16): a row belongs to exactly
        // one of a person (`user_id`) or a superuser (`superuser_id`, deleted with the superuser),
        // as `sessions` rows do, so a lookup scoped to one never finds the other's credential.
        // SQLite cannot relax `user_id`'s NOT NULL in place: the table is rebuilt, ids kept.
        migrator.registerMigration("s16-superuser-passkeys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE passkeys_s16 (
                        id INTEGER PRIMARY KEY,
                        credential_id BLOB NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1023),
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        superuser_id TEXT REFERENCES superusers(id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL CHECK (length(public_key) BETWEEN 1 AND 2048),
                        sign_count INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
                        transports TEXT NOT NULL CHECK (json_valid(transports) AND json_type(transports) = 'array'),
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                        backup_eligible BOOLEAN NOT NULL CHECK (backup_eligible IN (0, 1)),
                        backed_up BOOLEAN NOT NULL CHECK (backed_up IN (0, 1)),
                        created_at DATETIME NOT NULL,
                        last_used_at DATETIME,
                        CHECK ((user_id IS NULL) != (superuser_id IS NULL))
                    );
                    INSERT INTO passkeys_s16 (id, credential_id, user_id, public_key, sign_count, transports, name,
                                              backup_eligible, backed_up, created_at, last_used_at)
                    SELECT id, credential_id, user_id, public_key, sign_count, transports, name,
                           backup_eligible, backed_up, created_at, last_used_at
                    FROM passkeys;
                    DROP TABLE passkeys;
                    ALTER TABLE passkeys_s16 RENAME TO passkeys;
                    CREATE INDEX passkeys_user ON passkeys(user_id, id) WHERE user_id IS NOT NULL;
                    CREATE INDEX passkeys_superuser ON passkeys(superuser_id, id) WHERE superuser_id IS NOT NULL;
                    """)
        }
    }
}
