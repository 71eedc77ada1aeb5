import Foundation
import GRDB

extension AppDatabase {
    /// Keeps a flow's PKCE `verifier` under its `challenge` until `expiresAt`; dead ones are dropped.
    public func keepVerifier(_ verifier: String, challenge: String, expiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM kept_pkce_verifiers WHERE expires_at <= ?", arguments: [now.storedText])
            try db.execute(
                sql: "INSERT INTO kept_pkce_verifiers (code_challenge, verifier, expires_at) VALUES (?, ?, ?)",
                arguments: [challenge, verifier, expiresAt.storedText])
        }
    }

    /// The live verifier kept under `challenge`, taken: a second call finds none.
    public func takeVerifier(challenge: String, now: Date) async throws -> String? {
        try await pool.write { db in
            let verifier = try String.fetchOne(
                db, sql: "SELECT verifier FROM kept_pkce_verifiers WHERE code_challenge = ? AND expires_at > ?",
                arguments: [challenge, now.storedText])
            try db.execute(sql: "DELETE FROM kept_pkce_verifiers WHERE code_challenge = ?", arguments: [challenge])
            return verifier
        }
    }
}
