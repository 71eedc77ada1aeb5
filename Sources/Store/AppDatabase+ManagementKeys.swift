import Foundation
import GRDB

extension AppDatabase {
    /// Stores a new management key's hash under `id`.
    public func insertManagementKey(id: String, name: String, keyHash: String, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO management_keys (id, name, key_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [id, name, keyHash, now])
        }
    }

    /// Every management key, newest first, revoked ones included.
    public func managementKeys() async throws -> [ManagementKeyRecord] {
        try await pool.read { db in
            try ManagementKeyRecord.fetchAll(db, sql: "SELECT * FROM management_keys ORDER BY created_at DESC, id")
        }
    }

    /// The live (not revoked) key with this hash; nil for none.
    public func liveManagementKey(keyHash: String) async throws -> ManagementKeyRecord? {
        try await pool.read { db in
            try ManagementKeyRecord.fetchOne(
                db, sql: "SELECT * FROM management_keys WHERE key_hash = ? AND revoked_at IS NULL", arguments: [keyHash])
        }
    }

    /// Revokes a live key; the key as it was, or nil when there is no live key `id`.
    public func revokeManagementKey(id: String, at now: Date) async throws -> ManagementKeyRecord? {
        try await pool.write { db in
            let key = try ManagementKeyRecord.fetchOne(
                db, sql: "SELECT * FROM management_keys WHERE id = ? AND revoked_at IS NULL", arguments: [id])
            guard key != nil else { return nil }
            try db.execute(sql: "UPDATE management_keys SET revoked_at = ? WHERE id = ?", arguments: [now, id])
            return key
        }
    }
}
