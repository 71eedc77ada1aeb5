import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Writes a guest account: the user (no password, unproven, so provisional) and its guest mark,
    /// in one transaction.
    public func insertGuest(_ user: UserRecord) async throws -> UserRecord {
        try await pool.write { db in
            try user.insert(db)
            try Self.markProvisional(db, user)
            try db.execute(
                sql: "INSERT INTO guest_accounts (user_id, created_at) VALUES (?, ?)",
                arguments: [user.id.rawValue, user.createdAt.storedText])
            return user
        }
    }

    /// Gives guest `id` its own address (and `passwordHash`) and drops its guest mark, in one
    /// transaction with the sign-up's verification tokens: the account, its id, profile and
    /// sessions stay; `proven` marks the address proven (no longer provisional).
    /// `AuthError.userNotFound` when `id` is not a guest (an upgrade already done, or never one);
    /// `AuthError.emailExists` when the address has an account (nothing changes).
    public func upgradeGuest(
        id: UserID, email: String, passwordHash: String?, proven: Bool, at now: Date, tokens: [VerificationTokenRecord]
    ) async throws -> UserRecord {
        try await pool.write { db in
            guard var user = try Self.upgradeGuest(db, id: id, email: email, at: now) else { throw AuthError.userNotFound }
            user.passwordHash = passwordHash
            user.verified = user.verified || proven
            try user.update(db)
            if user.verified {
                try db.execute(sql: "DELETE FROM provisional_accounts WHERE user_id = ?", arguments: [id.rawValue])
            }
            for var token in tokens { try token.insert(db) }
            return user
        }
    }

    /// Guest `id` with `email` as its address and its guest mark dropped; nil when `id` is no guest.
    /// `AuthError.emailExists` when the address has an account.
    static func upgradeGuest(_ db: Database, id: UserID, email: String, at now: Date) throws -> UserRecord? {
        try db.execute(sql: "DELETE FROM guest_accounts WHERE user_id = ?", arguments: [id.rawValue])
        guard db.changesCount == 1, var user = try UserRecord.fetchOne(db, key: id.rawValue) else { return nil }
        user.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        user.emailNormalized = EmailAddress.normalize(email)
        user.updatedAt = now
        do {
            try user.update(db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AuthError.emailExists
        }
        return user
    }

    /// Whether account `id` is a guest.
    public func isGuest(_ id: UserID) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM guest_accounts WHERE user_id = ?)", arguments: [id.rawValue])
                ?? false
        }
    }

    /// Which of `ids` are guests (a page of the console's list).
    public func guests(among ids: [UserID]) async throws -> Set<UserID> {
        guard !ids.isEmpty else { return [] }
        return try await pool.read { db in
            let found = try String.fetchAll(
                db, sql: "SELECT user_id FROM guest_accounts WHERE user_id IN (\(databaseQuestionMarks(count: ids.count)))",
                arguments: StatementArguments(ids.map(\.rawValue)))
            return Set(found.map { UserID($0) })
        }
    }

    /// How many guest accounts there are.
    public func guestCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM guest_accounts") ?? 0 }
    }
}
