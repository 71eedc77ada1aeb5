import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Every account clock's offset in seconds, read once at start-up (`AccountClocks` keeps them in memory).
    public func accountClockOffsets() throws -> [UserID: TimeInterval] {
        try pool.read { db in
            var offsets: [UserID: TimeInterval] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user_id, offset_seconds FROM account_clocks") {
                offsets[UserID(row["user_id"])] = row["offset_seconds"]
            }
            return offsets
        }
    }

    /// Stores `userID`'s clock offset.
    public func saveAccountClockOffset(_ offset: TimeInterval, for userID: UserID, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account_clocks (user_id, offset_seconds, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET offset_seconds = excluded.offset_seconds, updated_at = excluded.updated_at
                    """,
                arguments: [userID.rawValue, offset, now.storedText])
        }
    }

    /// The account whose session row holds the refresh token hashed to `refreshTokenHash`,
    /// revoked or not (a rotation asks whose clock decides the row's age before it rotates).
    public func sessionOwner(refreshTokenHash: String) async throws -> UserID? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT user_id FROM sessions WHERE refresh_token_hash = ? AND user_id IS NOT NULL",
                arguments: [refreshTokenHash]
            ).map { UserID($0) }
        }
    }
}
