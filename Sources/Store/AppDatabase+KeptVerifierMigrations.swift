import GRDB

extension AppDatabase {
    /// PKCE verifiers the server keeps for an app flow whose exchange sends none (issue 44:
    /// Descope's `oauth/exchange {code}`): one random verifier per flow, found again by the
    /// challenge the flow's code was issued with, and taken once.
    static func registerKeptVerifierMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kept-pkce-verifiers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE kept_pkce_verifiers (
                        code_challenge TEXT PRIMARY KEY NOT NULL CHECK (length(code_challenge) = 43),
                        verifier TEXT NOT NULL CHECK (length(verifier) BETWEEN 43 AND 128),
                        expires_at DATETIME NOT NULL
                    );
                    CREATE INDEX kept_pkce_verifiers_expires_at ON kept_pkce_verifiers(expires_at);
                    """)
        }
    }
}
