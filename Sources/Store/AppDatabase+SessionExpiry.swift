import Foundation
import GRDB

extension AppDatabase {
    /// A person's live session with a fixed end (`sessions_fixed_end`): one a browser, PocketBase's
    /// or Descope's API holds (its row keeps the backend's session sealed), without a refresh token
    /// that would renew it.
    static let fixedEndSession = """
        s.user_id IS NOT NULL AND s.refresh_token_hash IS NULL AND s.revoked_at IS NULL
            AND EXISTS (SELECT 1 FROM session_credentials c WHERE c.session_id = s.id)
        """

    /// Since when expiries are reported: the last sweep, or the oldest enabled endpoint's start
    /// when that is later (expiries before any endpoint existed are nobody's news); nil without one.
    static let expiriesReportedSince = """
        (SELECT max(coalesce((SELECT swept_until FROM webhook_session_sweeps), ''), min(created_at))
            FROM webhook_endpoints WHERE enabled HAVING count(*) > 0)
        """

    /// When the next unreported session expiry is, while an enabled endpoint exists (nil otherwise,
    /// or when no session will expire). Read through `sessions_fixed_end` by name: left to itself,
    /// SQLite took the `refresh_token_hash` index for `IS NULL` and read every such session — all
    /// of them page, PocketBase-API and Descope sessions — at each of the delivery worker's looks.
    public func nextSessionExpiry() async throws -> Date? {
        try await pool.read(Self.nextSessionExpiry(in:))
    }

    /// `nextSessionExpiry()` inside a read that is under way (the delivery worker's look).
    static func nextSessionExpiry(in db: Database) throws -> Date? {
        try DatabaseValue.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT min(s.expires_at) FROM sessions s INDEXED BY sessions_fixed_end
                    WHERE s.expires_at > \(expiriesReportedSince) AND \(fixedEndSession)
                    """)
        ).flatMap(StoredDate.date(from:))
    }

    /// Writes `session.ended` (`reason` `expired`, the account as it is now) for each session that
    /// reached its end since the last sweep and by `now`, and moves the sweep to `now`, in one
    /// transaction; answers how many were written.
    public func reportExpiredSessions(now: Date) async throws -> Int {
        try await pool.write { db in
            guard let since = try String.fetchOne(db, sql: "SELECT \(Self.expiriesReportedSince)") else { return 0 }
            try db.execute(
                sql: """
                    INSERT INTO webhook_events (id, type, user_id, user, context, created_at)
                    SELECT \(Self.newEventID), 'session.ended', s.user_id,
                        (SELECT \(Self.webhookUser("users.")) FROM users WHERE users.id = s.user_id),
                        json_object('wayIn', NULL, 'actor', NULL, 'reason', 'expired',
                            'expiredAt', replace(s.expires_at, ' ', 'T') || 'Z'),
                        \(Self.sqlNow)
                    FROM sessions s INDEXED BY sessions_fixed_end
                    WHERE s.expires_at > ? AND s.expires_at <= ? AND \(Self.fixedEndSession)
                    ORDER BY s.expires_at, s.id
                    """, arguments: [since, now.storedText])
            let written = db.changesCount
            try db.execute(
                sql: """
                    INSERT INTO webhook_session_sweeps (id, swept_until) VALUES (1, ?)
                    ON CONFLICT (id) DO UPDATE SET swept_until = excluded.swept_until
                    """, arguments: [now.storedText])
            return written
        }
    }
}
