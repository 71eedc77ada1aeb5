import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Kills the user's live reset tokens (an older mail stops working) and stores `tokens` — the
    /// mailed link and, in code mode, the mailed code — in one transaction.
    public func replacePasswordResetTokens(with tokens: [VerificationTokenRecord], at now: Date) async throws {
        guard let userID = tokens.first?.userID else { return }
        try await pool.write { db in
            try Self.consumeLiveResetTokens(db, userID: userID, at: now)
            for token in tokens {
                var inserted = token
                try inserted.insert(db)
            }
        }
    }

    /// Trades a reset code whose try was claimed (`claimVerificationAttempt`) for `replacement`, a
    /// fresh link token: the code and every other live reset token of the user are spent in the same
    /// transaction. The conditional UPDATE decides races: of two parallel right codes one wins.
    /// False when the code was no longer live by the time of the write.
    public func exchangePasswordResetCode(id: Int64, for replacement: VerificationTokenRecord, at now: Date) async throws
        -> Bool
    {
        try await pool.write { db in
            guard try Self.spendLiveResetToken(db, id: id, kind: .code, at: now) else { return false }
            try Self.consumeLiveResetTokens(db, userID: replacement.userID, at: now)
            var inserted = replacement
            try inserted.insert(db)
            return true
        }
    }

    /// Spends a live reset link token and, in the same transaction, proves the address (the mailed
    /// secret proves it: `proveAddress` ends what the account held unproven), sets the user's
    /// password hash, spends the user's other reset tokens and revokes every session of the user —
    /// API tokens, refresh families and browser sessions alike. Returns the updated user,
    /// or nil when the token was dead or not a reset token (nothing is changed then).
    public func resetPassword(tokenID: Int64, passwordHash: String, at now: Date) async throws -> UserRecord? {
        try await pool.write { db in
            guard try Self.spendLiveResetToken(db, id: tokenID, kind: .link, at: now),
                let userID = try String.fetchOne(
                    db, sql: "SELECT user_id FROM verification_tokens WHERE id = ?", arguments: [tokenID]),
                try Bool.fetchOne(db, sql: "SELECT disabled FROM users WHERE id = ?", arguments: [userID]) == false
            else { return nil }
            try Self.proveAddress(db, userID: UserID(userID), by: .reset, at: now)
            try db.execute(
                sql: "UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
                arguments: [passwordHash, now.storedText, userID])
            try Self.consumeLiveResetTokens(db, userID: UserID(userID), at: now)
            try Self.revokeSessions(of: UserID(userID), at: now, in: db)
            return try UserRecord.fetchOne(db, key: userID)
        }
    }

    /// Replaces the password hash the caller checked (`currentHash`; a concurrent change makes this
    /// refuse), spends the user's live reset links and codes (one mailed before the change must not
    /// undo it) and revokes the user's sessions but `keeping` (the session the change was made with).
    /// Browser sessions — rows with a sealed backend credential, Gatehouse's web layer's — are left
    /// to that layer when `leavingBrowserSessions` (it keeps the one the change was made from and
    /// ends the others); every other row (apps, and the sessions behind other browsers, which then
    /// die with them) is revoked. False when the hash changed meanwhile (nothing is changed then).
    public func changePassword(
        userID: UserID, from currentHash: String, to newHash: String, keeping kept: Int64,
        leavingBrowserSessions: Bool, at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?",
                arguments: [newHash, now.storedText, userID.rawValue, currentHash])
            guard db.changesCount == 1 else { return false }
            try Self.consumeLiveResetTokens(db, userID: userID, at: now)
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked_at = ?
                    WHERE user_id = ? AND id != ? AND revoked_at IS NULL
                      AND (? = 0 OR id NOT IN (SELECT session_id FROM session_credentials))
                    """, arguments: [now.storedText, userID.rawValue, kept, leavingBrowserSessions])
            return true
        }
    }

    /// Spends one live reset token of `kind`; the conditional UPDATE decides races (of two parallel
    /// attempts one wins). False when it was no longer live.
    private static func spendLiveResetToken(
        _ db: Database, id: Int64, kind: VerificationTokenRecord.Kind, at now: Date
    ) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE verification_tokens SET consumed_at = ?
                WHERE id = ? AND purpose = ? AND kind = ? AND consumed_at IS NULL AND expires_at > ?
                """,
            arguments: [now.storedText, id, VerificationTokenRecord.Purpose.resetPassword, kind, now.storedText])
        return db.changesCount == 1
    }

    /// Spends the user's live reset links and codes: after a new password is set any way (reset,
    /// the owner's change, staff), and when a code is traded for a fresh link.
    static func consumeLiveResetTokens(_ db: Database, userID: UserID, at now: Date) throws {
        try db.execute(
            sql: """
                UPDATE verification_tokens SET consumed_at = ?
                WHERE user_id = ? AND purpose = ? AND consumed_at IS NULL
                """, arguments: [now.storedText, userID.rawValue, VerificationTokenRecord.Purpose.resetPassword])
    }
}
