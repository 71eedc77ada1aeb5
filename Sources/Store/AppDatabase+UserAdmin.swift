import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Reads the account, lets `transform` change it (throwing refuses and rolls back) and stores
    /// it; a new password spends the account's live reset links and codes. A new email already
    /// taken → `AuthError.emailExists`.
    public func updateUser(id: UserID, _ transform: @escaping @Sendable (inout UserRecord) throws -> Void) async throws
        -> UserRecord
    {
        try await pool.write { db in
            guard var user = try UserRecord.fetchOne(db, key: id.rawValue) else { throw AuthError.userNotFound }
            let passwordHash = user.passwordHash
            try transform(&user)
            do {
                try user.update(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw AuthError.emailExists
            }
            if user.passwordHash != passwordHash { try Self.consumeLiveResetTokens(db, userID: id, at: user.updatedAt) }
            return user
        }
    }

    /// Deletes the account (its tokens and links cascade) and revokes its sessions, in one transaction.
    public func deleteUser(id: UserID, at now: Date) async throws {
        try await pool.write { db in
            try Self.revokeSessions(of: id, at: now, in: db)
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id.rawValue])
            guard db.changesCount == 1 else { throw AuthError.userNotFound }
        }
    }
}
