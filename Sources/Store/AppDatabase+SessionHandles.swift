import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// A person's session row by its id with the backend credential kept beside it, whatever its state:
    /// the caller decides what a revoked or expired row means. For APIs that name a session by a
    /// stable handle (SuperTokens' session handle) while its tokens rotate.
    public func sessionWithCredential(id: Int64) async throws -> (SessionRecord, String?)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT s.*, c.credential FROM sessions s
                        LEFT JOIN session_credentials c ON c.session_id = s.id WHERE s.id = ? AND s.user_id IS NOT NULL
                        """, arguments: [id])
            else { return nil }
            return (try SessionRecord(row: row), row["credential"])
        }
    }
}
