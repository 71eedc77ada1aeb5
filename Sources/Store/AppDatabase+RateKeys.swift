import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Every key starting with `prefix` that has events after `since`, with its window: how staff
    /// find the back-offs of one address or of all (`Budgets.lockouts`). A range over the key index.
    public func rateWindows(keyPrefix prefix: String, since: Date) async throws -> [String: RateWindow] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT key, count(*) AS n, min(at) AS oldest, max(at) AS newest FROM rate_limit_events
                    WHERE key >= ? AND key < ? AND at > ? GROUP BY key
                    """,
                arguments: [prefix, prefix + "\u{10FFFF}", since.storedText])
            return Dictionary(
                uniqueKeysWithValues: rows.map { row in
                    (
                        row["key"] as String,
                        RateWindow(count: row["n"], oldest: row.storedDate("oldest"), newest: row.storedDate("newest"))
                    )
                })
        }
    }

    /// The ids of the accounts at these normalized addresses (addresses without one are skipped):
    /// the users list's "locked" filter turns its back-offs' addresses into accounts with it.
    public func userIDs(normalizedEmails emails: [String]) async throws -> [UserID] {
        guard !emails.isEmpty else { return [] }
        return try await pool.read { db in
            try UserRecord.filter(emails.contains(UserRecord.CodingKeys.emailNormalized)).fetchAll(db).map(\.id)
        }
    }
}
