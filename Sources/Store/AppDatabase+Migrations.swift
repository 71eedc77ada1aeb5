import GRDB

extension AppDatabase {
    /// The schema, one named step at a time. A released migration is never edited: later changes
    /// are new steps appended at the end. The database enforces what it can (NOT NULL, UNIQUE,
    /// CHECK, foreign keys) so a bug in Swift cannot write an impossible row.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1-users") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
                        email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
                        email_normalized TEXT NOT NULL UNIQUE
                            CHECK (length(email_normalized) BETWEEN 3 AND 254 AND email_normalized = lower(email_normalized)),
                        password_hash TEXT CHECK (password_hash IS NULL OR length(password_hash) > 0),
                        verified BOOLEAN NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
                        profile TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(profile) AND json_type(profile) = 'object'),
                        disabled BOOLEAN NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    )
                    """)
        }

        migrator.registerMigration("v1-verification-tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE verification_tokens (
                        id INTEGER PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        purpose TEXT NOT NULL CHECK (length(purpose) > 0),
                        kind TEXT NOT NULL CHECK (kind IN ('code', 'link')),
                        secret_hash TEXT NOT NULL CHECK (length(secret_hash) > 0),
                        expires_at DATETIME NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        consumed_at DATETIME,
                        created_at DATETIME NOT NULL
                    );
                    CREATE UNIQUE INDEX verification_tokens_link_secret ON verification_tokens(kind, secret_hash)
                        WHERE kind = 'link';
                    CREATE INDEX verification_tokens_user_purpose ON verification_tokens(user_id, purpose, kind, id);
                    """)
        }

        // user_id has no foreign key: the same table holds sessions of remote backends' users.
        migrator.registerMigration("v1-sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (
                        id INTEGER PRIMARY KEY,
                        token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) > 0),
                        refresh_token_hash TEXT UNIQUE,
                        user_id TEXT NOT NULL CHECK (length(user_id) > 0),
                        user_agent TEXT,
                        ip TEXT,
                        created_at DATETIME NOT NULL,
                        last_used_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        revoked_at DATETIME,
                        impersonator TEXT
                    );
                    CREATE INDEX sessions_user ON sessions(user_id);
                    """)
        }

        migrator.registerMigration("v1-mails") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mails (
                        id INTEGER PRIMARY KEY,
                        recipient TEXT NOT NULL,
                        recipient_normalized TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        text TEXT NOT NULL,
                        html TEXT NOT NULL,
                        code TEXT,
                        link TEXT,
                        created_at DATETIME NOT NULL
                    );
                    CREATE INDEX mails_recipient ON mails(recipient_normalized, id);
                    """)
        }

        migrator.registerMigration("v1-audit-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE audit_events (
                        id INTEGER PRIMARY KEY,
                        type TEXT NOT NULL CHECK (length(type) > 0),
                        actor TEXT,
                        subject TEXT,
                        ip TEXT,
                        created_at DATETIME NOT NULL,
                        data TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(data) AND json_type(data) = 'object')
                    );
                    CREATE INDEX audit_events_created ON audit_events(created_at);
                    CREATE INDEX audit_events_subject ON audit_events(subject);
                    CREATE INDEX audit_events_type ON audit_events(type);
                    """)
        }

        migrator.registerMigration("v1-secrets") { db in
            try db.execute(
                sql: """
                    CREATE TABLE secrets (
                        name TEXT PRIMARY KEY NOT NULL CHECK (length(name) > 0),
                        value BLOB NOT NULL CHECK (length(value) > 0)
                    )
                    """)
        }

        registerClientCoreMigrations(in: &migrator)
        registerConsoleMigrations(in: &migrator)
        registerOAuthMigrations(&migrator)
        registerSecurityMigrations(&migrator)
        registerTOTPMigrations(&migrator)
        registerEmailChangeMigrations(&migrator)
        registerPasswordlessMigrations(&migrator)
        registerInsForgeMigrations(&migrator)
        registerUserListMigrations(&migrator)
        registerUserChangeMigrations(&migrator)
        registerTokenMigrations(&migrator)
        registerIdentityMigrations(&migrator)
        registerMailMigrations(&migrator)
        registerSuperuserTOTPMigrations(&migrator)
        registerSessionStoreMigrations(&migrator)
        registerDescopeEmailChangeMigrations(&migrator)
        registerPasskeyMigrations(&migrator)
        registerUserListSortMigrations(&migrator)
        registerAppBrandingMigrations(&migrator)
        registerSignUpProfileMigrations(&migrator)
        registerKeptVerifierMigrations(&migrator)
        registerAppBackendMigrations(&migrator)
        registerAccountTrustMigrations(&migrator)
        registerSecondFactorMigrations(&migrator)
        registerWebhookMigrations(&migrator)
        registerStaffChallengeMigrations(&migrator)
        registerManagementKeyMigrations(&migrator)
        registerSupportDetailMigrations(&migrator)
        registerSessionExpiryMigrations(&migrator)
        registerAccountClockMigrations(&migrator)
        registerAppUserMetaMigrations(&migrator)
        registerGuestAccountMigrations(&migrator)
        return migrator
    }
}
