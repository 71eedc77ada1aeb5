import Foundation
import GRDB

extension AppDatabase {
    /// Events are kept at most this long; every rule's window is shorter.
    static let rateEventRetention: TimeInterval = 86_400

    /// The events recorded under `key` after `since` (a read, for showing a cool-down).
    public func rateWindow(key: String, since: Date) async throws -> RateWindow {
        try await pool.read { db in try RateLedger(db: db).window(key: key, since: since) }
    }

    /// Runs `body` in one write transaction over the rate-limit events, so what it reads and what
    /// it records are atomic with respect to every other caller: two parallel callers can never
    /// both take the last slot of a budget.
    public func withRateLedger<T: Sendable>(_ body: @escaping @Sendable (RateLedger) throws -> T) async throws -> T {
        try await pool.write { db in try body(RateLedger(db: db)) }
    }
}

/// The rate-limit events as one transaction sees them (`AppDatabase.withRateLedger`).
public struct RateLedger {
    fileprivate let db: Database

    /// The events recorded under `key` after `since`.
    public func window(key: String, since: Date) throws -> RateWindow {
        let row = try Row.fetchOne(
            db, sql: "SELECT count(*) AS n, min(at) AS oldest, max(at) AS newest FROM rate_limit_events WHERE key = ? AND at > ?",
            arguments: [key, since.storedText])
        return RateWindow(count: row?["n"] ?? 0, oldest: row?.storedDate("oldest"), newest: row?.storedDate("newest"))
    }

    /// Records one event under `key` at `moment` and returns its id; everyone's events older than
    /// the retention before `serverNow` (else `moment`) are dropped on the way. An event counted in
    /// an account's moved time (`AccountClocks`) names the server's time here, or it would drop
    /// every other account's recent events.
    @discardableResult
    public func record(key: String, at moment: Date, serverNow: Date? = nil) throws -> Int64 {
        try db.execute(
            sql: "DELETE FROM rate_limit_events WHERE at < ?",
            arguments: [(serverNow ?? moment).addingTimeInterval(-AppDatabase.rateEventRetention).storedText])
        try db.execute(sql: "INSERT INTO rate_limit_events (key, at) VALUES (?, ?)", arguments: [key, moment.storedText])
        return db.lastInsertedRowID
    }

    /// Forgets the events with these ids (a try that turned out not to count).
    public func forget(ids: [Int64]) throws {
        for id in ids { try db.execute(sql: "DELETE FROM rate_limit_events WHERE id = ?", arguments: [id]) }
    }

    /// Forgets every event (the test controls' reset: every budget full again).
    public func forgetAll() throws {
        try db.execute(sql: "DELETE FROM rate_limit_events")
    }

    /// Forgets every event under `key` (e.g. an (account, source) pair's failures after the right password).
    public func forget(key: String) throws {
        try db.execute(sql: "DELETE FROM rate_limit_events WHERE key = ?", arguments: [key])
    }
}
