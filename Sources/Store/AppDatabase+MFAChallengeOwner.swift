import AuthCore
import GRDB

extension AppDatabase {
    /// The account a second-step challenge belongs to (live, spent or expired); nil when unknown.
    public func mfaChallengeOwner(idHash: String) async throws -> UserID? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT user_id FROM mfa_challenges WHERE id_hash = ?", arguments: [idHash])
                .map { UserID($0) }
        }
    }
}
