import Foundation
import GRDB

extension AppDatabase {
    /// What the delivery worker needs at each look, in one read: up to `limit` deliveries due now
    /// (none of `excluded`, which are in flight), the seconds until the next other one may be due,
    /// and when the next session expiry is (`nextSessionExpiry`). Its statements are kept prepared:
    /// the worker looks once per event and per try.
    public func webhookWork(excluding excluded: Set<Int64>, grace: TimeInterval, limit: Int) async throws -> WebhookWork {
        try await pool.read { db in
            let due = limit > 0 ? try Self.dueWebhookDeliveries(excluding: excluded, grace: grace, limit: limit, in: db) : []
            return WebhookWork(
                due: due,
                secondsUntilNext: try Self.secondsUntilNextWebhookDelivery(
                    excluding: excluded.union(due.map(\.id)), grace: grace, in: db),
                nextSessionExpiry: try Self.nextSessionExpiry(in: db))
        }
    }

    /// The outbox's newest event (its `seq`), nil while it is empty: what the delivery worker
    /// compares to notice events another process wrote.
    public func newestWebhookEvent() async throws -> Int64? {
        try await pool.read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(seq) FROM webhook_events")) }
    }

    /// Up to `limit` pending deliveries due now, oldest first, none of `excluded`: each the first
    /// pending one of its endpoint and account (`chain`), so an account's events arrive in order,
    /// and its event settled — claimed by its act's audit row, or older than `grace` seconds (the
    /// act ended without one).
    private static func dueWebhookDeliveries(excluding excluded: Set<Int64>, grace: TimeInterval, limit: Int, in db: Database)
        throws -> [DueWebhookDelivery]
    {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT d.id AS delivery_id, d.attempts, ev.id AS event_id, ev.type, ev.user_id, ev.user, ev.context,
                        ev.created_at AS event_created_at, e.*
                    FROM webhook_deliveries d
                    JOIN webhook_events ev ON ev.seq = d.event_seq
                    JOIN webhook_endpoints e ON e.id = d.endpoint_id
                    WHERE d.state = 'pending' AND d.next_at <= \(sqlNow) AND e.enabled
                        AND (ev.context IS NOT NULL OR ev.created_at <= strftime('%Y-%m-%d %H:%M:%f', 'now', ?))
                        AND NOT EXISTS (
                            SELECT 1 FROM webhook_deliveries p
                            WHERE p.endpoint_id = d.endpoint_id AND p.chain = d.chain AND p.state = 'pending' AND p.id < d.id)
                    ORDER BY d.id LIMIT ?
                    """), arguments: [offset(-grace), limit + excluded.count])
        return try rows.lazy.filter { !excluded.contains($0["delivery_id"]) }.prefix(limit).map { row in
            DueWebhookDelivery(
                id: row["delivery_id"], attempts: row["attempts"], eventID: row["event_id"], type: row["type"],
                userID: row["user_id"], user: row["user"], context: row["context"], createdAt: row["event_created_at"],
                endpoint: try WebhookEndpointRecord(row: row))
        }
    }

    /// Seconds until the next pending delivery may be due (0 when one is), nil when none will be:
    /// only the first pending one of each endpoint and account counts (those behind it wait for
    /// it), and none of `excluded` (in flight: the end of each try wakes the worker anyway).
    private static func secondsUntilNextWebhookDelivery(excluding excluded: Set<Int64>, grace: TimeInterval, in db: Database)
        throws -> TimeInterval?
    {
        try Double.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT max(0, (julianday(min(max(d.next_at, CASE WHEN ev.context IS NULL
                        THEN strftime('%Y-%m-%d %H:%M:%f', ev.created_at, ?) ELSE d.next_at END))) - julianday('now')) * 86400)
                    FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq
                    JOIN webhook_endpoints e ON e.id = d.endpoint_id
                    WHERE d.state = 'pending' AND e.enabled AND d.id NOT IN (SELECT value FROM json_each(?))
                        AND NOT EXISTS (
                            SELECT 1 FROM webhook_deliveries p
                            WHERE p.endpoint_id = d.endpoint_id AND p.chain = d.chain AND p.state = 'pending' AND p.id < d.id)
                    HAVING count(*) > 0
                    """),
            arguments: [offset(grace), "[" + excluded.sorted().map(String.init).joined(separator: ",") + "]"])
    }
}
