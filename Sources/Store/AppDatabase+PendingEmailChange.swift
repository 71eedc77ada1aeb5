import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// The account's email change waiting for its confirmation now (a live link or code), newest
    /// first: the address it moves to and when the wait ends. Nil when none is waiting.
    public func waitingEmailChange(userID: UserID, now: Date) async throws -> (newEmail: String, expiresAt: Date)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT r.new_email, t.expires_at FROM verification_tokens t
                        JOIN email_change_requests r ON r.token_id = t.id
                        WHERE t.user_id = ? AND t.purpose = ? AND t.consumed_at IS NULL AND t.expires_at > ?
                        ORDER BY t.id DESC LIMIT 1
                        """,
                    arguments: [userID.rawValue, VerificationTokenRecord.Purpose.changeEmail, now.storedText]),
                let expiresAt = row.storedDate("expires_at")
            else { return nil }
            return (row["new_email"], expiresAt)
        }
    }
}
