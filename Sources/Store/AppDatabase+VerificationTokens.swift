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
    /// working) and inserts `token` — and `twin`, the same proof as a link, when there is one — in
    /// one transaction, with `disown`, the mail's "this wasn't me" link, where it carries one.
    @discardableResult
    public func replaceVerificationTokens(
        with token: VerificationTokenRecord, twin: VerificationTokenRecord? = nil, disown: VerificationTokenRecord? = nil
    ) async throws -> VerificationTokenRecord {
        try await pool.write { db in
            let inserted = try Self.replaceVerificationTokens(db, with: token)
            if var twin { try twin.insert(db) }
            if var disown { try disown.insert(db) }
            return inserted
        }
    }

    /// `replaceVerificationTokens(with:)` inside a caller's transaction.
    static func replaceVerificationTokens(_ db: Database, with token: VerificationTokenRecord) throws -> VerificationTokenRecord {
        try db.execute(
            sql: """
                UPDATE verification_tokens SET consumed_at = ?
                WHERE user_id = ? AND purpose = ? AND consumed_at IS NULL
                """, arguments: [token.createdAt.storedText, token.userID.rawValue, token.purpose])
        var inserted = token
        try inserted.insert(db)
        return inserted
    }

    /// Claims one of a live token's `maxAttempts` tries before its secret is compared: one
    /// conditional UPDATE increments `attempts` only while the token is live and under the limit,
    /// so of any number of parallel checks exactly `maxAttempts` are ever allowed to compare.
    /// Returns false when the token is dead (consumed, expired or out of tries).
    public func claimVerificationAttempt(tokenID: Int64, maxAttempts: Int, now: Date) async throws -> Bool {
        try await claimAttempt(
            in: VerificationTokenRecord.databaseTableName, tokenID: tokenID, maxAttempts: maxAttempts, now: now)
    }

    /// The conditional UPDATE behind `claimVerificationAttempt` and `claimSignInAttempt`, for a table
    /// of tokens with `attempts`, `consumed_at` and `expires_at`.
    func claimAttempt(in table: String, tokenID: Int64, maxAttempts: Int, now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE \(table) SET attempts = attempts + 1
                    WHERE id = ? AND consumed_at IS NULL AND attempts < ? AND expires_at > ?
                    """, arguments: [tokenID, maxAttempts, now.storedText])
            return db.changesCount == 1
        }
    }

    /// Spends an email-verification token whose try was claimed (`claimVerificationAttempt`) and
    /// proves its user's address (`proveAddress`: what the account held unproven and the mail was
    /// not bound to ends), in one transaction.
    ///
    /// The conditional UPDATE (live, not expired) is the single point of truth: of two parallel
    /// correct submissions exactly one changes the row. Returns the updated user, or nil when the
    /// token was no longer live by the time of the write.
    public func consumeEmailVerificationToken(id: Int64, now: Date) async throws -> UserRecord? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET consumed_at = ?
                    WHERE id = ? AND purpose = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, id, VerificationTokenRecord.Purpose.verifyEmail, now.storedText])
            guard db.changesCount == 1, let token = try VerificationTokenRecord.fetchOne(db, key: id) else { return nil }
            try Self.proveAddress(db, userID: token.userID, by: .verificationMail(token), at: now)
            return try UserRecord.fetchOne(
                db,
                sql: """
                    SELECT users.* FROM users JOIN verification_tokens ON verification_tokens.user_id = users.id
                    WHERE verification_tokens.id = ?
                    """, arguments: [id])
        }
    }
}
