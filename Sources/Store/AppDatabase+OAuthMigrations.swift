import GRDB

extension AppDatabase {
    /// Tables for sign-in providers, linked identities, in-flight OAuth flows, registered apps
    /// and their one-time codes, and the built-in test provider. Appended after the v1 steps.
    static func registerOAuthMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-oauth-providers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE oauth_providers (
                        name TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 32 AND name NOT GLOB '*[^a-z0-9_-]*'),
                        type TEXT NOT NULL CHECK (type IN ('oidc', 'oauth2')),
                        mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
                        display_name TEXT,
                        issuer TEXT,
                        authorization_url TEXT,
                        token_url TEXT,
                        userinfo_url TEXT,
                        jwks_url TEXT,
                        client_id TEXT NOT NULL,
                        client_secret_sealed BLOB,
                        scopes TEXT NOT NULL DEFAULT '',
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    )
                    """)
        }

        migrator.registerMigration("v2-oauth-external-auths") { db in
            try db.execute(
                sql: """
                    CREATE TABLE external_auths (
                        id INTEGER PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        provider TEXT NOT NULL CHECK (length(provider) > 0),
                        subject TEXT NOT NULL CHECK (length(subject) > 0),
                        email TEXT,
                        created_at DATETIME NOT NULL,
                        UNIQUE (provider, subject),
                        UNIQUE (user_id, provider)
                    )
                    """)
        }

        // A flow between "go to the provider" and its callback: found by the state's hash, bound to
        // the browser that started it by a second secret in a cookie, consumed once.
        migrator.registerMigration("v2-oauth-flows") { db in
            try db.execute(
                sql: """
                    CREATE TABLE oauth_flows (
                        id INTEGER PRIMARY KEY,
                        state_hash TEXT NOT NULL UNIQUE CHECK (length(state_hash) > 0),
                        browser_hash TEXT NOT NULL CHECK (length(browser_hash) > 0),
                        provider TEXT NOT NULL,
                        purpose TEXT NOT NULL CHECK (purpose IN ('sign_in', 'link')),
                        user_id TEXT,
                        code_verifier TEXT NOT NULL,
                        nonce TEXT NOT NULL,
                        app_request TEXT CHECK (app_request IS NULL OR json_valid(app_request)),
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        consumed_at DATETIME,
                        CHECK (purpose = 'sign_in' OR user_id IS NOT NULL)
                    )
                    """)
        }

        migrator.registerMigration("v2-oauth-apps") { db in
            try db.execute(
                sql: """
                    CREATE TABLE oauth_apps (
                        id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
                        callback_urls TEXT NOT NULL CHECK (json_valid(callback_urls) AND json_type(callback_urls) = 'array'),
                        legacy_callback BOOLEAN NOT NULL DEFAULT 0 CHECK (legacy_callback IN (0, 1)),
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL
                    );
                    CREATE TABLE oauth_app_codes (
                        id INTEGER PRIMARY KEY,
                        code_hash TEXT NOT NULL UNIQUE CHECK (length(code_hash) > 0),
                        app_id TEXT NOT NULL REFERENCES oauth_apps(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL,
                        code_challenge TEXT NOT NULL CHECK (length(code_challenge) = 43),
                        client_type TEXT NOT NULL,
                        callback_url TEXT NOT NULL,
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        consumed_at DATETIME
                    );
                    """)
        }

        migrator.registerMigration("v2-oauth-test-idp") { db in
            try db.execute(
                sql: """
                    CREATE TABLE test_idp_accounts (
                        id INTEGER PRIMARY KEY,
                        provider TEXT NOT NULL,
                        subject TEXT NOT NULL CHECK (length(subject) > 0),
                        email TEXT NOT NULL,
                        email_verified BOOLEAN NOT NULL CHECK (email_verified IN (0, 1)),
                        name TEXT,
                        created_at DATETIME NOT NULL,
                        UNIQUE (provider, subject)
                    );
                    CREATE TABLE test_idp_codes (
                        id INTEGER PRIMARY KEY,
                        code_hash TEXT NOT NULL UNIQUE,
                        provider TEXT NOT NULL,
                        account_id INTEGER NOT NULL REFERENCES test_idp_accounts(id) ON DELETE CASCADE,
                        redirect_uri TEXT NOT NULL,
                        code_challenge TEXT NOT NULL,
                        nonce TEXT NOT NULL,
                        created_at DATETIME NOT NULL,
                        expires_at DATETIME NOT NULL,
                        consumed_at DATETIME
                    );
                    """)
        }
    }
}
