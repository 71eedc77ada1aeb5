import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// The user's newest token of this purpose and kind (live or not): the only one a code is
    /// checked against.
    public func latestVerificationToken(
        userID: UserID, purpose: VerificationTokenRecord.Purpose,
        kind: VerificationTokenRecord.Kind
    ) async throws -> VerificationTokenRecord? {
        try await pool.read { db in
            try VerificationTokenRecord
                .filter(
                    VerificationTokenRecord.CodingKeys.userID == userID.rawValue
                        && VerificationTokenRecord.CodingKeys.purpose == purpose
                        && VerificationTokenRecord.CodingKeys.kind == kind
                )
                .order(VerificationTokenRecord.CodingKeys.id.desc)
                .fetchOne(db)
        }
    }

    /// The link token whose keyed hash is `secretHash` (unique by index).
    public func linkToken(secretHash: String) async throws -> VerificationTokenRecord? {
        try await pool.read { db in
            try VerificationTokenRecord
                .filter(
                    VerificationTokenRecord.CodingKeys.kind == VerificationTokenRecord.Kind.link
                        && VerificationTokenRecord.CodingKeys.secretHash == secretHash
                )
                .fetchOne(db)
        }
    }

    /// Marks the user's live tokens of the same purpose as used (so an older code or link stops
    /// working) and inserts `token`, in one transaction.
    @discardableResult
    public func replaceVerificationTokens(with token: VerificationTokenRecord) async throws -> VerificationTokenRecord {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET consumed_at = ?
                    WHERE user_id = ? AND purpose = ? AND consumed_at IS NULL
                    """, arguments: [token.createdAt, token.userID.rawValue, token.purpose])
            var inserted = token
            try inserted.insert(db)
            return inserted
        }
    }

    /// Spends an email-verification token and marks its user verified, in one transaction.
    ///
    /// The conditional UPDATE (live, under `maxAttempts`, not expired) is the single point of
    /// truth: of two parallel correct submissions exactly one changes the row. Returns the updated
    /// user, or nil when the token was no longer live by the time of the write.
    public func consumeEmailVerificationToken(id: Int64, maxAttempts: Int, now: Date) async throws -> UserRecord? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET consumed_at = ?
                    WHERE id = ? AND purpose = ? AND consumed_at IS NULL AND attempts < ? AND expires_at > ?
                    """, arguments: [now, id, VerificationTokenRecord.Purpose.verifyEmail, maxAttempts, now])
            guard db.changesCount == 1 else { return nil }
            try db.execute(
                sql: """
                    UPDATE users SET verified = 1, updated_at = ?
                    WHERE id = (SELECT user_id FROM verification_tokens WHERE id = ?) AND verified = 0
                    """, arguments: [now, id])
            return try UserRecord.fetchOne(
                db,
                sql: """
                    SELECT users.* FROM users JOIN verification_tokens ON verification_tokens.user_id = users.id
                    WHERE verification_tokens.id = ?
                    """, arguments: [id])
        }
    }

    /// Counts one wrong code against a live token, atomically; at `maxAttempts` the token is dead.
    public func recordWrongAttempt(tokenID: Int64, maxAttempts: Int) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET attempts = attempts + 1
                    WHERE id = ? AND consumed_at IS NULL AND attempts < ?
                    """, arguments: [tokenID, maxAttempts])
        }
    }
}
