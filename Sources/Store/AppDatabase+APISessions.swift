import AuthCore
import Foundation
import GRDB

/// What happened to a presented refresh token.
public enum RefreshRotation: Sendable, Equatable {
    /// It was current: the session now carries the new token hashes.
    case rotated(SessionRecord)
    /// It had been rotated away before: the session it belonged to is now revoked.
    case reused
    /// Unknown, expired, revoked or non-refreshable.
    case refused
}

extension AppDatabase {
    /// Swaps the session's access and refresh token hashes if `refreshTokenHash` is its current
    /// refresh token, the session is unrevoked and was created after `createdAfter`; remembers
    /// the old hash so a replay revokes the session. One transaction.
    public func rotateRefreshToken(
        _ refreshTokenHash: String, newTokenHash: String, newRefreshTokenHash: String,
        accessExpiresAt: Date, createdAfter: Date, now: Date
    ) async throws -> RefreshRotation {
        // Cached statements: a rotation is every refresh of every rotating API, and preparing its
        // four statements anew cost more than running them.
        try await pool.write { db in
            if var session = try SessionRecord.fetchOne(
                db.cachedStatement(
                    sql: "SELECT * FROM sessions WHERE refresh_token_hash = ? AND revoked_at IS NULL AND created_at > ?"),
                arguments: [refreshTokenHash, createdAfter.storedText])
            {
                try db.cachedStatement(
                    sql: "INSERT INTO rotated_refresh_tokens (token_hash, session_id, rotated_at) VALUES (?, ?, ?)"
                ).execute(arguments: [refreshTokenHash, session.id, now.storedText])
                try db.cachedStatement(
                    sql:
                        "UPDATE sessions SET token_hash = ?, refresh_token_hash = ?, expires_at = ?, last_used_at = ? WHERE id = ?"
                ).execute(arguments: [newTokenHash, newRefreshTokenHash, accessExpiresAt.storedText, now.storedText, session.id])
                session.tokenHash = newTokenHash
                session.refreshTokenHash = newRefreshTokenHash
                session.expiresAt = accessExpiresAt
                session.lastUsedAt = now
                return .rotated(session)
            }
            if let sessionID = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT session_id FROM rotated_refresh_tokens WHERE token_hash = ?"),
                arguments: [refreshTokenHash])
            {
                try db.cachedStatement(sql: "UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
                    .execute(arguments: [now.storedText, sessionID])
                return .reused
            }
            return .refused
        }
    }

    /// Revokes the session whose access token hashes to `tokenHash`; returns whether one was revoked.
    @discardableResult
    public func revokeSession(tokenHash: String, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL",
                arguments: [now.storedText, tokenHash])
            return db.changesCount > 0
        }
    }

    /// Keeps a remote backend's credential beside a browser session (replacing an earlier one).
    public func saveCredential(_ credential: String, sessionID: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO session_credentials (session_id, credential) VALUES (?, ?)",
                arguments: [sessionID, credential])
        }
    }

    /// The backend credential kept beside a browser session, as saved last.
    public func credential(sessionID: Int64) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT credential FROM session_credentials WHERE session_id = ?", arguments: [sessionID])
        }
    }

    /// A live browser session and the backend session kept (sealed) beside it — one read,
    /// since every signed-in page view asks for both. `idleTimeout` ends a session unused that long.
    public func activeSessionWithCredential(tokenHash: String, now: Date, idleTimeout: TimeInterval? = nil) async throws
        -> (SessionRecord, String?)?
    {
        try hotReads.read { connection in
            try connection.first(
                Self.activeSessionWithCredentialSQL, Self.activeSessionArguments(tokenHash, now, idleTimeout)
            ) { row in (try SessionRecord(columns: row), try row.optionalString("credential")) }
        }
    }

    /// `activeSessionSQL` with the credential kept beside the session, if any.
    private static let activeSessionWithCredentialSQL = """
        SELECT s.*, c.credential FROM (\(activeSessionSQL)) s
        LEFT JOIN session_credentials c ON c.session_id = s.id
        """
}

extension AppDatabase {
    /// How many browser sessions carry a remote backend's credential (tests and the console).
    public func credentialCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM session_credentials") ?? 0 }
    }
}
