import AuthCore
import Foundation
import GRDB

/// A live or spent `change_email` token with the address it moves its account to.
public struct PendingEmailChange: Sendable, Equatable {
    public var token: VerificationTokenRecord
    public var newEmail: String
    /// The asker's live session was the proof (Descope's `update/email`): the mailed secret
    /// confirms it alone, without the account's password.
    public var provenBySession: Bool
}

/// What confirming an email change did.
public struct AppliedEmailChange: Sendable, Equatable {
    public var user: UserRecord
    /// Whether the session asked to be kept was a live session of this account (and so is kept).
    public var keptSession: Bool
}

extension AppDatabase {
    /// Stores a new email-change token with its address, superseding the account's older pending
    /// changes (their links or codes stop working), in one transaction. `provenBySession`: the
    /// asker's live session was the proof, so confirming needs no password.
    public func insertEmailChange(_ token: VerificationTokenRecord, newEmail: String, provenBySession: Bool = false) async throws
    {
        try await pool.write { db in
            let inserted = try Self.replaceVerificationTokens(db, with: token)
            let trimmed = newEmail.trimmingCharacters(in: .whitespacesAndNewlines)
            try db.execute(
                sql: "INSERT INTO email_change_requests (token_id, new_email, new_email_normalized, proof) VALUES (?, ?, ?, ?)",
                arguments: [inserted.id, trimmed, EmailAddress.normalize(trimmed), provenBySession ? "session" : "password"])
        }
    }

    /// The email-change link whose keyed hash is `secretHash`, live or not, with its address.
    public func pendingEmailChange(secretHash: String) async throws -> PendingEmailChange? {
        try await pool.read { db in
            try Self.pendingEmailChange(
                db,
                VerificationTokenRecord.fetchOne(
                    db, sql: "SELECT * FROM verification_tokens WHERE kind = ? AND secret_hash = ? AND purpose = ?",
                    arguments: [VerificationTokenRecord.Kind.link, secretHash, VerificationTokenRecord.Purpose.changeEmail]))
        }
    }

    /// The account's newest email-change code (only a session-proven change mails one), live or
    /// not, with its address: the only one a code is checked against.
    public func pendingEmailChangeCode(userID: UserID) async throws -> PendingEmailChange? {
        try await pool.read { db in
            try Self.pendingEmailChange(
                db,
                VerificationTokenRecord.fetchOne(
                    db,
                    sql: """
                        SELECT * FROM verification_tokens WHERE user_id = ? AND kind = ? AND purpose = ?
                        ORDER BY id DESC LIMIT 1
                        """,
                    arguments: [userID.rawValue, VerificationTokenRecord.Kind.code, VerificationTokenRecord.Purpose.changeEmail]))
        }
    }

    /// `token` with the request stored beside it; nil without either.
    private static func pendingEmailChange(_ db: Database, _ token: VerificationTokenRecord?) throws -> PendingEmailChange? {
        guard let token,
            let row = try Row.fetchOne(
                db, sql: "SELECT new_email, proof FROM email_change_requests WHERE token_id = ?", arguments: [token.id])
        else { return nil }
        let proof: String = row["proof"]
        return PendingEmailChange(token: token, newEmail: row["new_email"], provenBySession: proof == "session")
    }

    /// Confirms an email change in one transaction: spends the token (a conditional UPDATE, so of
    /// two parallel confirmations one wins), moves the account to the token's address and marks it
    /// verified, kills the account's other live tokens (links mailed to the old address), and
    /// revokes every session of the account except the one whose access token hashes to
    /// `keepingTokenHash`. Returns nil when the token was no longer live. The new address taken by
    /// another account meanwhile → `AuthError.emailExists`, and nothing is written.
    public func applyEmailChange(tokenID: Int64, keepingTokenHash: String?, now: Date) async throws -> AppliedEmailChange? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET consumed_at = ?
                    WHERE id = ? AND purpose = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, tokenID, VerificationTokenRecord.Purpose.changeEmail, now.storedText])
            guard db.changesCount == 1,
                let token = try VerificationTokenRecord.fetchOne(db, key: tokenID),
                let request = try Row.fetchOne(
                    db, sql: "SELECT new_email, new_email_normalized FROM email_change_requests WHERE token_id = ?",
                    arguments: [tokenID])
            else { return nil }
            let userID = token.userID.rawValue
            do {
                try db.execute(
                    sql: """
                        UPDATE users SET email = ?, email_normalized = ?, verified = 1, updated_at = ? WHERE id = ?
                        """,
                    arguments: [request["new_email"] as String, request["new_email_normalized"] as String, now.storedText, userID]
                )
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw AuthError.emailExists
            }
            try db.execute(
                sql: "UPDATE verification_tokens SET consumed_at = ? WHERE user_id = ? AND consumed_at IS NULL",
                arguments: [now.storedText, userID])
            let kept =
                try keepingTokenHash.map { hash in
                    try Self.activeSession(db, tokenHash: hash, now: now, idleTimeout: nil)?.userID == token.userID
                } ?? false
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked_at = ?
                    WHERE user_id = ? AND revoked_at IS NULL AND token_hash IS NOT ?
                    """, arguments: [now.storedText, userID, kept ? keepingTokenHash : nil])
            guard let user = try UserRecord.fetchOne(db, key: userID) else { throw AuthError.userNotFound }
            return AppliedEmailChange(user: user, keptSession: kept)
        }
    }
}
