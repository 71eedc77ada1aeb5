import AuthCore
import Foundation
import GRDB

/// The test controls' `expire-now`: one account's live credentials of one kind end at `now` (the
/// account's time), each write counting what was live as the person would count it.
extension AppDatabase {
    /// Ends every session of `userID`, every way in; how many live ones the person held. A session
    /// backing a browser session (`NewSession.browserBackingUserAgent`) is ended with it but not
    /// counted apart: the person holds one cookie, not two rows.
    public func expireSessions(of userID: UserID, at now: Date) async throws -> Int {
        try await pool.write { db in
            let live =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM sessions
                        WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? AND user_agent IS NOT ?
                        """, arguments: [userID.rawValue, now.storedText, NewSession.browserBackingUserAgent]) ?? 0
            try Self.revokeSessions(of: userID, at: now, in: db)
            return live
        }
    }

    /// Ends `userID`'s live mailed secrets of `kind` ("code" or "link"): verification, reset, email
    /// change and "this wasn't me" tokens, and passwordless sign-in codes or links, also those asked
    /// for by the account's address. They expire now (a link then says it expired); how many were live.
    public func expireMailedSecrets(of userID: UserID, kind: String, at now: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET expires_at = ?
                    WHERE user_id = ? AND kind = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, userID.rawValue, kind, now.storedText])
            let verification = db.changesCount
            try db.execute(
                sql: """
                    UPDATE sign_in_tokens SET expires_at = ?
                    WHERE (user_id = ? OR email_normalized = (SELECT email_normalized FROM users WHERE id = ?))
                    AND kind = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, userID.rawValue, userID.rawValue, kind, now.storedText])
            return verification + db.changesCount
        }
    }

    /// Ends `userID`'s pending second steps (a sign-in waiting for the authenticator's code); how
    /// many were pending. Their tries still count toward the account's recent wrong steps.
    public func expireSecondSteps(of userID: UserID, at now: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE mfa_challenges SET expires_at = ?
                    WHERE user_id = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, userID.rawValue, now.storedText])
            return db.changesCount
        }
    }
}
