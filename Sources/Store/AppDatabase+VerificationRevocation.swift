import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Marks every live verification token of the account as used (codes and links alike), so
    /// none of them verifies the address any more.
    public func revokeVerificationTokens(userID: UserID, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE verification_tokens SET consumed_at = ?
                    WHERE user_id = ? AND purpose = ? AND consumed_at IS NULL
                    """, arguments: [now.storedText, userID.rawValue, VerificationTokenRecord.Purpose.verifyEmail])
        }
    }
}
