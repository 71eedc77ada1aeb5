import GRDB

extension AppDatabase {
    /// The profile a passwordless sign-up asked with (issue 43: Descope's sign-up routes send
    /// `user: {name, …}` with the request, never with the code or link): a right code or link that
    /// creates the account gives it this profile. NULL for every other request.
    static func registerSignUpProfileMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("sign-in-token-sign-up-profile") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sign_in_tokens
                    ADD COLUMN sign_up_profile TEXT CHECK (sign_up_profile IS NULL OR json_type(sign_up_profile) = 'object')
                    """)
        }
    }
}
