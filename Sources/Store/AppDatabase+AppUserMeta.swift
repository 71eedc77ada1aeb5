import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// What the app keeps on account `userID` apart from its profile; empty when nothing is kept.
    public func appUserMeta(userID: String) async throws -> [String: JSONValue] {
        try await pool.read { db in try Self.appUserMeta(db, userID) }
    }

    /// Merges `patch` into the account's meta in one transaction (each key replaces, `null`
    /// removes it), stored as `check` accepts its text (it throws to refuse); the meta after.
    public func mergeAppUserMeta(
        userID: String, _ patch: [String: JSONValue], at now: Date, check: @escaping @Sendable (String) throws -> Void
    ) async throws -> [String: JSONValue] {
        try await pool.write { db in
            var meta = try Self.appUserMeta(db, userID)
            for (key, value) in patch {
                if value == .null { meta.removeValue(forKey: key) } else { meta[key] = value }
            }
            let text = try Self.json(meta)
            try check(text)
            try db.execute(
                sql: """
                    INSERT INTO app_user_meta (user_id, meta, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET meta = excluded.meta, updated_at = excluded.updated_at
                    """,
                arguments: [userID, text, now.storedText])
            return meta
        }
    }

    /// Forgets the account's meta (the account was deleted).
    public func deleteAppUserMeta(userID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM app_user_meta WHERE user_id = ?", arguments: [userID])
        }
    }

    private static func appUserMeta(_ db: Database, _ userID: String) throws -> [String: JSONValue] {
        guard let text = try String.fetchOne(db, sql: "SELECT meta FROM app_user_meta WHERE user_id = ?", arguments: [userID])
        else { return [:] }
        guard case .object(let meta)? = JSONValue(parsing: text) else {
            throw DatabaseError(message: "app user meta is not an object")
        }
        return meta
    }
}
