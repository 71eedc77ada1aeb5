import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Kills the address's live tokens of the same kind (an older code or link stops working) and
    /// inserts `token`, in one transaction.
    @discardableResult
    public func replaceSignInTokens(with token: SignInTokenRecord) async throws -> SignInTokenRecord {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE sign_in_tokens SET consumed_at = ?
                    WHERE email_normalized = ? AND kind = ? AND consumed_at IS NULL
                    """, arguments: [token.createdAt.storedText, token.emailNormalized, token.kind])
            // Dead rows are kept a day for support, then dropped.
            try db.execute(
                sql: "DELETE FROM sign_in_tokens WHERE expires_at < ?",
                arguments: [token.createdAt.addingTimeInterval(-24 * 3600).storedText])
            var inserted = token
            try inserted.insert(db)
            return inserted
        }
    }

    /// The token whose keyed lookup hash is `lookupHash` (unique), live or not.
    public func signInToken(lookupHash: String) async throws -> SignInTokenRecord? {
        try await pool.read { db in
            try SignInTokenRecord.filter(SignInTokenRecord.CodingKeys.lookupHash == lookupHash).fetchOne(db)
        }
    }

    /// Claims one of a live code's `maxAttempts` tries before it is compared (as
    /// `claimVerificationAttempt` does): false when the code is dead.
    public func claimSignInAttempt(tokenID: Int64, maxAttempts: Int, now: Date) async throws -> Bool {
        try await claimAttempt(in: SignInTokenRecord.databaseTableName, tokenID: tokenID, maxAttempts: maxAttempts, now: now)
    }

    /// What spending a sign-in token came to.
    public enum SignInTokenSpending: Sendable, Equatable {
        /// Spent; the account to sign in (verified now).
        case signedIn(UserRecord, created: Bool)
        /// Not live any more (spent, superseded or expired by the time of the write).
        case dead
        /// Spent, but the address has no account and sign-up was not allowed.
        case noAccount
    }

    /// Spends a live token and, in the same transaction, settles its account: the token's account;
    /// else, when sign-up was allowed, the account now holding the address or `newUser` inserted.
    /// The address is proven (`proveAddress`): an account that was not verified loses what it held
    /// unproven — password, passkeys, authenticator app, sessions, links — which nobody ever tied
    /// to the mailbox (a pre-hijacking defence: whoever signed up with someone else's address cannot
    /// keep a way in once the owner signs in). With `guest` (a guest account's id, the session that
    /// spends it being that guest's), an address with no account goes to the guest instead of
    /// `newUser` (`upgradeGuest`): never an address that has one.
    public func spendSignInToken(
        id: Int64, now: Date, newUser: UserRecord, guest: UserID? = nil
    ) async throws -> SignInTokenSpending {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE sign_in_tokens SET consumed_at = ?
                    WHERE id = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, id, now.storedText])
            guard db.changesCount == 1, let token = try SignInTokenRecord.fetchOne(db, key: id) else { return .dead }
            var created = false
            var user: UserRecord
            if let userID = token.userID, let existing = try UserRecord.fetchOne(db, key: userID.rawValue) {
                user = existing
            } else if token.allowSignUp {
                if let existing = try UserRecord.filter(UserRecord.CodingKeys.emailNormalized == token.emailNormalized)
                    .fetchOne(db)
                {
                    user = existing
                } else if let guest, let upgraded = try Self.upgradeGuest(db, id: guest, email: token.email, at: now) {
                    user = upgraded
                    created = true
                } else {
                    user = newUser
                    user.email = token.email
                    user.emailNormalized = token.emailNormalized
                    try user.insert(db)
                    created = true
                }
            } else {
                return .noAccount
            }
            if try Self.proveAddress(db, userID: user.id, by: .signInMail, at: now) {
                user = try UserRecord.fetchOne(db, key: user.id.rawValue) ?? user
            }
            return .signedIn(user, created: created)
        }
    }
}
