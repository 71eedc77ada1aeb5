import Foundation
import GRDB

extension AppDatabase {
    /// Inserts or replaces a provider by name, keeping its first `created_at`; true when it was new.
    @discardableResult
    public func saveProvider(_ record: ProviderRecord) async throws -> Bool {
        try await pool.write { db in
            let existed =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM oauth_providers WHERE name = ?)", arguments: [record.name]) ?? false
            try db.execute(
                sql: """
                    INSERT INTO oauth_providers (name, type, mode, display_name, issuer, authorization_url, token_url,
                        userinfo_url, jwks_url, client_id, client_secret_sealed, scopes, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET type = excluded.type, mode = excluded.mode,
                        display_name = excluded.display_name, issuer = excluded.issuer,
                        authorization_url = excluded.authorization_url, token_url = excluded.token_url,
                        userinfo_url = excluded.userinfo_url, jwks_url = excluded.jwks_url, client_id = excluded.client_id,
                        client_secret_sealed = excluded.client_secret_sealed, scopes = excluded.scopes,
                        updated_at = excluded.updated_at
                    """,
                arguments: [
                    record.name, record.type, record.mode, record.displayName, record.issuer,
                    record.authorizationURL, record.tokenURL, record.userInfoURL, record.jwksURL,
                    record.clientId, record.clientSecretSealed, record.scopes,
                    record.createdAt.storedText, record.updatedAt.storedText
                ])
            return !existed
        }
    }

    /// Switches a provider between its real endpoints and the built-in test page.
    @discardableResult
    public func setProviderMode(name: String, mode: String, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE oauth_providers SET mode = ?, updated_at = ? WHERE name = ?",
                arguments: [mode, now.storedText, name])
            return db.changesCount == 1
        }
    }

    @discardableResult
    public func deleteProvider(name: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM oauth_providers WHERE name = ?", arguments: [name])
            return db.changesCount == 1
        }
    }

    public func provider(named name: String) async throws -> ProviderRecord? {
        try await pool.read { db in
            try ProviderRecord.fetchOne(db, sql: "SELECT * FROM oauth_providers WHERE name = ?", arguments: [name])
        }
    }

    /// Every provider, by name.
    public func providers() async throws -> [ProviderRecord] {
        // Every sign-in page asks (for its buttons): a small table, read on the calling thread.
        try hotReads.read { connection in
            try connection.rows("SELECT * FROM oauth_providers ORDER BY name", [], ProviderRecord.init)
        }
    }
}
