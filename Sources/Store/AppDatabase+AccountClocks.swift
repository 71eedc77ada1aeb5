import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// `userID`'s time now, by `clock` (the server's): moved ahead by `accountClockOffsets`.
    public func now(for userID: UserID, clock: () -> Date) -> Date {
        clock().addingTimeInterval(accountClockOffsets.offset(of: userID))
    }

    /// Every account clock's offset in seconds, read once when the file is opened.
    static func accountClockOffsets(_ pool: DatabasePool) throws -> [UserID: TimeInterval] {
        try pool.read { db in
            var offsets: [UserID: TimeInterval] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user_id, offset_seconds FROM account_clocks") {
                offsets[UserID(row["user_id"])] = row["offset_seconds"]
            }
            return offsets
        }
    }

    /// Moves `userID`'s clock `seconds` further ahead, kept in the file and in memory; the new offset.
    public func advanceAccountClock(_ userID: UserID, by seconds: TimeInterval, at now: Date) async throws -> TimeInterval {
        let offset = try await pool.write { db in
            let moved =
                (try Double.fetchOne(
                    db, sql: "SELECT offset_seconds FROM account_clocks WHERE user_id = ?", arguments: [userID.rawValue])
                    ?? 0) + seconds
            try db.execute(
                sql: """
                    INSERT INTO account_clocks (user_id, offset_seconds, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET offset_seconds = excluded.offset_seconds, updated_at = excluded.updated_at
                    """,
                arguments: [userID.rawValue, moved, now.storedText])
            return moved
        }
        accountClockOffsets.set(offset, for: userID)
        return offset
    }

    /// Puts every account back on the server's clock (a test reset: a seed file's pinned ids must
    /// not inherit the clocks of the accounts the reset removed).
    public func forgetAccountClocks() async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM account_clocks") }
        accountClockOffsets.removeAll()
    }

    /// The account whose session row holds the refresh token hashed to `refreshTokenHash`,
    /// revoked or not (a rotation asks whose clock decides the row's age before it rotates).
    public func sessionOwner(refreshTokenHash: String) async throws -> UserID? {
        // A hot read: every rotation of a refresh token asks whose clock it runs on.
        try hotReads.read { connection in
            try connection.first(
                "SELECT user_id FROM sessions WHERE refresh_token_hash = ? AND user_id IS NOT NULL", [.text(refreshTokenHash)]
            ) { row in UserID(try row.string("user_id")) }
        }
    }
}
