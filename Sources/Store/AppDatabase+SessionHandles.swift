import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// A person's session row by its id with the backend credential kept beside it, whatever its state:
    /// the caller decides what a revoked or expired row means. For APIs that name a session by a
    /// stable handle (SuperTokens' session handle) while its tokens rotate.
    /// A hot read: SuperTokens' `session/verify` with `checkDatabase` asks for it on every call.
    public func sessionWithCredential(id: Int64) async throws -> (SessionRecord, String?)? {
        try hotReads.read { connection in
            try connection.first(Self.sessionWithCredentialSQL, [.integer(id)]) { row in
                (try SessionRecord(columns: row), try row.optionalString("credential"))
            }
        }
    }

    private static let sessionWithCredentialSQL = """
        SELECT s.*, c.credential FROM sessions s
        LEFT JOIN session_credentials c ON c.session_id = s.id WHERE s.id = ? AND s.user_id IS NOT NULL
        """
}
