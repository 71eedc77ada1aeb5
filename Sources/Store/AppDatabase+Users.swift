import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Inserts a new account and, when given, its first verification token (and that token's link
    /// twin) in one transaction, so a crash leaves either all or none. Another account with the same
    /// normalized email (in any letter case, even one inserted concurrently) → `AuthError.emailExists`,
    /// nothing written. `bySignUp`: a person's own sign-up, whose account stays provisional until its
    /// address is proven (`proveAddress`); staff's accounts are not. `disown`: the sign-up mail's
    /// "this wasn't me" token.
    public func insertUser(
        _ user: UserRecord, verificationToken: VerificationTokenRecord?, twin: VerificationTokenRecord? = nil,
        bySignUp: Bool = false, disown: VerificationTokenRecord? = nil
    ) async throws -> UserRecord {
        try await pool.write { db in
            do {
                try user.insert(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // The only UNIQUE constraint of `users` besides its primary key is email_normalized.
                throw AuthError.emailExists
            }
            if bySignUp { try Self.markProvisional(db, user) }
            for var token in [verificationToken, twin, disown].compactMap({ $0 }) {
                try token.insert(db)
            }
            return user
        }
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await pool.read { db in try UserRecord.fetchOne(db, key: id.rawValue) }
    }

    /// Whether the account has a password; nil when there is no such account. One primary-key read
    /// on the calling thread (`HotReads`).
    public func hasPassword(userID: UserID) async throws -> Bool? {
        try hotReads.read { connection in
            try connection.first(
                "SELECT password_hash IS NOT NULL AS has_password FROM users WHERE id = ?", [.text(userID.rawValue)]
            ) { row in try row.bool("has_password") }
        }
    }

    /// The account for an address in any letter case or surrounding whitespace.
    public func user(email: String) async throws -> UserRecord? {
        let normalized = EmailAddress.normalize(email)
        return try await pool.read { db in
            try UserRecord.filter(UserRecord.CodingKeys.emailNormalized == normalized).fetchOne(db)
        }
    }

    /// Replaces the password hash only if it is still `old` (a concurrent password change wins).
    /// Returns whether the row changed.
    @discardableResult
    public func replacePasswordHash(userID: UserID, from old: String, to new: String, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?
                    """, arguments: [new, now.storedText, userID.rawValue, old])
            return db.changesCount == 1
        }
    }

    /// Reads the profile, lets `transform` compute the new one (it may throw to refuse, which
    /// rolls back), and stores it with a new `updated_at` — all in one write transaction, so
    /// concurrent patches merge instead of overwriting each other.
    public func updateProfile(
        userID: UserID, at now: Date,
        _ transform: @escaping @Sendable (Profile) throws -> Profile
    ) async throws -> UserRecord {
        try await pool.write { db in
            guard var user = try UserRecord.fetchOne(db, key: userID.rawValue) else { throw AuthError.userNotFound }
            user.profile = try transform(user.profile)
            user.updatedAt = now
            try user.update(db)
            return user
        }
    }
}
