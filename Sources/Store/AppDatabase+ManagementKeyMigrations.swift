import GRDB

extension AppDatabase {
    /// Management keys (issue 47): the secrets a test suite sends to Descope's management API
    /// (`Bearer <projectId>:<key>`), kept only as keyed hashes; a revoked key keeps its row (and
    /// name) for the audit log's sake.
    static func registerManagementKeyMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s18-management-keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE management_keys (
                        id TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                        key_hash TEXT NOT NULL UNIQUE CHECK (length(key_hash) > 0),
                        created_at DATETIME NOT NULL,
                        revoked_at DATETIME
                    );
                    """)
        }
    }
}
