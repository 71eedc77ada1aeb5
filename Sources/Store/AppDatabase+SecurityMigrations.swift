import GRDB

extension AppDatabase {
    /// Migrations from the security pass (issue 9), appended after every earlier one.
    static func registerSecurityMigrations(_ migrator: inout DatabaseMigrator) {
        // A remote backend's token lives only as long as the browser session it belongs to: any
        // revocation (sign-out, "sign out everywhere", disable, password change) deletes it. Tokens
        // stored before are plain text: they are dropped (reads fall back to the backend's admin
        // side), and from now on the web layer stores them sealed.
        migrator.registerMigration("v3-security-sealed-credentials") { db in
            try db.execute(
                sql: """
                    DELETE FROM session_credentials;
                    CREATE TRIGGER session_credentials_die_with_their_session
                    AFTER UPDATE OF revoked_at ON sessions
                    WHEN NEW.revoked_at IS NOT NULL
                    BEGIN
                        DELETE FROM session_credentials WHERE session_id = NEW.id;
                    END;
                    """)
        }
    }
}
