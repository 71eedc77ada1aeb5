import Foundation
import GRDB

extension AppDatabase {
    /// Events are kept at most this long; every rule's window is shorter.
    static let rateEventRetention: TimeInterval = 86_400

    /// The events recorded under `key` after `since`.
    public func rateWindow(key: String, since: Date) async throws -> RateWindow {
        try await pool.read { db in try Self.rateWindow(db, key: key, since: since) }
    }

    /// Records one event under `key` at `now`, dropping the key's events from before `keepingSince`
    /// (they no longer count) and everyone's older than the retention.
    public func recordRateEvent(key: String, at now: Date, keepingSince: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM rate_limit_events WHERE key = ? AND at <= ?", arguments: [key, keepingSince.storedText])
            try Self.insertRateEvent(db, key: key, at: now)
        }
    }

    /// In one transaction: when fewer than `limit` events happened under `key` after `since`,
    /// records one at `now` and returns nil; otherwise records nothing and returns the window
    /// that refused it. Two parallel callers can never both take the last slot.
    public func takeRateEvent(key: String, limit: Int, since: Date, at now: Date) async throws -> RateWindow? {
        try await pool.write { db in
            let window = try Self.rateWindow(db, key: key, since: since)
            guard window.count < limit else { return window }
            try Self.insertRateEvent(db, key: key, at: now)
            return nil
        }
    }

    /// Forgets every event under `key` (e.g. failures after a successful sign-in).
    public func clearRateEvents(key: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM rate_limit_events WHERE key = ?", arguments: [key])
        }
    }

    private static func rateWindow(_ db: Database, key: String, since: Date) throws -> RateWindow {
        let row = try Row.fetchOne(
            db, sql: "SELECT count(*) AS n, min(at) AS oldest, max(at) AS newest FROM rate_limit_events WHERE key = ? AND at > ?",
            arguments: [key, since.storedText])
        return RateWindow(count: row?["n"] ?? 0, oldest: row?.storedDate("oldest"), newest: row?.storedDate("newest"))
    }

    private static func insertRateEvent(_ db: Database, key: String, at now: Date) throws {
        try db.execute(
            sql: "DELETE FROM rate_limit_events WHERE at < ?", arguments: [now.addingTimeInterval(-rateEventRetention).storedText]
        )
        try db.execute(sql: "INSERT INTO rate_limit_events (key, at) VALUES (?, ?)", arguments: [key, now.storedText])
    }
}
