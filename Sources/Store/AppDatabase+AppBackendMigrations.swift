import GRDB

extension AppDatabase {
    /// What an app's own backend keeps with Gatehouse between its calls (issue 44: a SuperTokens
    /// core's passwordless devices, its authenticator devices' names and wrong codes, the app's
    /// data on a session), kept in the file so a restart loses nothing the API acknowledged.
    static func registerAppBackendMigrations(_ migrator: inout DatabaseMigrator) {
        // A sign-in request to one address, named by the device id the app keeps and the
        // pre-auth session id its link carries; `otp_id` is the backend's current code request
        // (a resend moves it). `expires_at` is when the row may be swept (a day after its code ends).
        migrator.registerMigration("s17-app-backend-state") { db in
            try db.execute(
                sql: """
                    CREATE TABLE app_sign_in_devices (
                        device_id TEXT PRIMARY KEY NOT NULL CHECK (length(device_id) > 0),
                        pre_auth_session_id TEXT NOT NULL UNIQUE CHECK (length(pre_auth_session_id) > 0),
                        email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
                        account_existed BOOLEAN NOT NULL CHECK (account_existed IN (0, 1)),
                        otp_id TEXT NOT NULL CHECK (length(otp_id) > 0),
                        code_id TEXT NOT NULL CHECK (length(code_id) > 0),
                        code_created_at DATETIME NOT NULL,
                        code_lifetime REAL NOT NULL CHECK (code_lifetime > 0),
                        maximum_attempts INTEGER NOT NULL CHECK (maximum_attempts > 0),
                        failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
                        expires_at DATETIME NOT NULL
                    );
                    CREATE INDEX app_sign_in_devices_expires_at ON app_sign_in_devices(expires_at);
                    CREATE INDEX app_sign_in_devices_email ON app_sign_in_devices(email COLLATE NOCASE);
                    CREATE TABLE app_authenticator_devices (
                        user_id TEXT PRIMARY KEY NOT NULL CHECK (length(user_id) > 0),
                        name TEXT CHECK (name IS NULL OR length(name) > 0),
                        pending_since DATETIME,
                        failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0)
                    );
                    CREATE TABLE app_session_data (
                        session_id INTEGER PRIMARY KEY NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        in_jwt TEXT CHECK (in_jwt IS NULL OR (json_valid(in_jwt) AND json_type(in_jwt) = 'object')),
                        in_database TEXT NOT NULL DEFAULT '{}'
                            CHECK (json_valid(in_database) AND json_type(in_database) = 'object')
                    );
                    """)
        }
    }
}
