import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Tags `userIDs` with `tag` (already tagged ones are left as they are).
    public func addTag(_ tag: String, to userIDs: [UserID], at now: Date) async throws {
        try await pool.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO user_tags (user_id, tag, created_at) VALUES (?, ?, ?)")
            for id in userIDs { try statement.execute(arguments: [id.rawValue, tag, now.storedText]) }
        }
    }

    /// Each user's tags, alphabetically; users without tags are absent.
    public func tags(of userIDs: [UserID]) async throws -> [UserID: [String]] {
        guard !userIDs.isEmpty else { return [:] }
        return try await pool.read { db in
            let placeholders = databaseQuestionMarks(count: userIDs.count)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT user_id, tag FROM user_tags WHERE user_id IN (\(placeholders)) ORDER BY tag
                    """, arguments: StatementArguments(userIDs.map(\.rawValue)))
            var result: [UserID: [String]] = [:]
            for row in rows {
                let userID: String = row["user_id"]
                let tag: String = row["tag"]
                result[UserID(userID), default: []].append(tag)
            }
            return result
        }
    }

    /// Every user id carrying `tag`.
    public func userIDs(taggedWith tag: String) async throws -> [UserID] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT user_id FROM user_tags WHERE tag = ? ORDER BY user_id", arguments: [tag])
                .map { UserID($0) }
        }
    }

    /// Forgets every tag of users that no longer exist.
    public func removeTags(of userIDs: [UserID]) async throws {
        guard !userIDs.isEmpty else { return }
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM user_tags WHERE user_id IN (\(databaseQuestionMarks(count: userIDs.count)))",
                arguments: StatementArguments(userIDs.map(\.rawValue)))
        }
    }

    /// When each user last started a session (their last sign-in, impersonation aside), for the
    /// console's list: kept by a trigger on `sessions` (s16-user-list-sort), so it outlives pruned sessions.
    public func lastSignIns(of userIDs: [UserID]) async throws -> [UserID: Date] {
        guard !userIDs.isEmpty else { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT user_id, at FROM user_last_sign_ins
                    WHERE user_id IN (\(databaseQuestionMarks(count: userIDs.count)))
                    """, arguments: StatementArguments(userIDs.map(\.rawValue)))
            var result: [UserID: Date] = [:]
            for row in rows {
                let userID: String = row["user_id"]
                if let last = row.storedDate("at") { result[UserID(userID)] = last }
            }
            return result
        }
    }
}
