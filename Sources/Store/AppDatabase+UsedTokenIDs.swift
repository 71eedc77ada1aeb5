import Foundation
import GRDB

extension AppDatabase {
    /// Marks an identity token's id (its keyed hash) as used until `expiresAt`. Returns false when
    /// it was already used and has not expired: a replay. Expired marks are dropped on the way.
    public func markTokenIDUsed(idHash: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM used_token_ids WHERE expires_at <= ?", arguments: [now.storedText])
            try db.execute(
                sql: "INSERT OR IGNORE INTO used_token_ids (id_hash, expires_at) VALUES (?, ?)",
                arguments: [idHash, expiresAt.storedText])
            return db.changesCount == 1
        }
    }
}
