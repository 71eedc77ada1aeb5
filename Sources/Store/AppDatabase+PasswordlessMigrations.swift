import GRDB

extension AppDatabase {
    /// Passwordless sign-in (issue 10): mailed one-time codes and magic links. A separate table from
    /// `verification_tokens` because a row may have no account yet (unknown addresses, sign-up by
    /// code or link) and a link carries the asking browser's binding.
    static func registerPasswordlessMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-passwordless-sign-in-tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sign_in_tokens (
                        id INTEGER PRIMARY KEY,
                        kind TEXT NOT NULL CHECK (kind IN ('code', 'link')),
                        lookup_hash TEXT NOT NULL UNIQUE CHECK (length(lookup_hash) > 0),
                        code_hash TEXT CHECK (code_hash IS NULL OR length(code_hash) > 0),
                        email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
                        email_normalized TEXT NOT NULL
                            CHECK (length(email_normalized) BETWEEN 3 AND 254 AND email_normalized = lower(email_normalized)),
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        allow_sign_up BOOLEAN NOT NULL DEFAULT 0 CHECK (allow_sign_up IN (0, 1)),
                        browser_binding TEXT,
                        expires_at DATETIME NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        consumed_at DATETIME,
                        created_at DATETIME NOT NULL,
                        CHECK ((kind = 'code') = (code_hash IS NOT NULL))
                    );
                    CREATE INDEX sign_in_tokens_email ON sign_in_tokens(email_normalized, kind);
                    CREATE INDEX sign_in_tokens_expires_at ON sign_in_tokens(expires_at);
                    """)
        }
    }
}
