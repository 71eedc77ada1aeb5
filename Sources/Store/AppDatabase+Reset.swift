import Foundation
import GRDB

extension AppDatabase {
    /// What `wipeActivity` deletes: Gatehouse's record of what people did — sessions and the
    /// credentials sealed beside them, mail, audit, throttling counters, flows and codes in
    /// progress. Superusers (and their console sessions), providers, apps, the test identity
    /// provider's accounts and secrets are configuration, and stay.
    static let activityTables = [
        "session_credentials", "rotated_refresh_tokens", "sessions", "mails", "audit_events",
        "rate_limit_events", "used_token_ids", "oauth_flows", "oauth_app_codes", "test_idp_codes",
        "sign_in_tokens", "mfa_challenges", "user_tags"
    ]

    /// Deletes every row of `activityTables` in one transaction (`gatehouse reset`, after the
    /// backend deleted the accounts); returns how many rows each table lost.
    public func wipeActivity() async throws -> [String: Int] {
        try await pool.write { db in
            var deleted: [String: Int] = [:]
            for table in Self.activityTables {
                try db.execute(sql: "DELETE FROM \(table)")
                deleted[table] = db.changesCount
            }
            return deleted
        }
    }
}
