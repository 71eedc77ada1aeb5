import GRDB

extension AppDatabase {
    /// What support staff need to see why a person can't sign in (issue 49): an impersonation
    /// session keeps why staff opened it (`impersonation_reason`, `impersonation_ticket`), for its
    /// banner.
    static func registerSupportDetailMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s49-impersonation-reason") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN impersonation_reason TEXT;
                    ALTER TABLE sessions ADD COLUMN impersonation_ticket TEXT;
                    """)
        }
    }
}
