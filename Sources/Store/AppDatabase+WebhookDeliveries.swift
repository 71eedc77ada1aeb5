import Foundation
import GRDB

extension AppDatabase {
    /// Up to `limit` pending deliveries due now, oldest first, none of `excluded` (in flight): each
    /// the first pending one of its endpoint and account (`chain`), so an account's events arrive
    /// in order, and its event settled — claimed by its act's audit row, or older than `grace`
    /// seconds (the act ended without one).
    public func dueWebhookDeliveries(excluding excluded: Set<Int64>, grace: TimeInterval, limit: Int) async throws
        -> [DueWebhookDelivery]
    {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id AS delivery_id, d.attempts, ev.id AS event_id, ev.type, ev.user_id, ev.user, ev.context,
                        ev.created_at AS event_created_at, e.*
                    FROM webhook_deliveries d
                    JOIN webhook_events ev ON ev.seq = d.event_seq
                    JOIN webhook_endpoints e ON e.id = d.endpoint_id
                    WHERE d.state = 'pending' AND d.next_at <= \(Self.sqlNow) AND e.enabled
                        AND (ev.context IS NOT NULL OR ev.created_at <= strftime('%Y-%m-%d %H:%M:%f', 'now', ?))
                        AND NOT EXISTS (
                            SELECT 1 FROM webhook_deliveries p
                            WHERE p.endpoint_id = d.endpoint_id AND p.chain = d.chain AND p.state = 'pending' AND p.id < d.id)
                    ORDER BY d.id LIMIT ?
                    """, arguments: [Self.offset(-grace), limit + excluded.count])
            return try rows.lazy.filter { !excluded.contains($0["delivery_id"]) }.prefix(limit).map { row in
                DueWebhookDelivery(
                    id: row["delivery_id"], attempts: row["attempts"], eventID: row["event_id"], type: row["type"],
                    userID: row["user_id"], user: row["user"], context: row["context"], createdAt: row["event_created_at"],
                    endpoint: try WebhookEndpointRecord(row: row))
            }
        }
    }

    /// Seconds until the next pending delivery may be due (0 when one is), nil when none will be:
    /// only the first pending one of each endpoint and account counts (those behind it wait for
    /// it), and none of `excluded` (in flight: the end of each try wakes the worker anyway).
    public func secondsUntilNextWebhookDelivery(excluding excluded: Set<Int64>, grace: TimeInterval) async throws
        -> TimeInterval?
    {
        let inFlight = String(decoding: try JSONEncoder().encode(excluded.sorted()), as: UTF8.self)
        return try await pool.read { db in
            try Double.fetchOne(
                db,
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
                    """, arguments: [Self.offset(grace), inFlight])
        }
    }

    /// Keeps `attempt` of delivery `id` and applies its outcome, in one transaction.
    public func recordWebhookAttempt(_ attempt: WebhookAttemptRecord, of id: Int64, outcome: WebhookAttemptOutcome)
        async throws
    {
        let headers = String(decoding: try JSONEncoder().encode(attempt.requestHeaders), as: UTF8.self)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_attempts (delivery_id, request_headers, request_body, status, response_body, error,
                        duration_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, headers, attempt.requestBody, attempt.status, attempt.responseBody, attempt.error,
                    attempt.durationMilliseconds, attempt.at
                ])
            let endpoint = "(SELECT endpoint_id FROM webhook_deliveries WHERE id = ?)"
            switch outcome {
            case .delivered:
                try db.execute(
                    sql: "UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1 WHERE id = ?",
                    arguments: [id])
                try db.execute(
                    sql: "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = \(endpoint) AND failing_since IS NOT NULL",
                    arguments: [id])
            case .retry(let seconds):
                try db.execute(
                    sql: """
                        UPDATE webhook_deliveries SET attempts = attempts + 1,
                            next_at = strftime('%Y-%m-%d %H:%M:%f', 'now', ?) WHERE id = ?
                        """, arguments: [Self.offset(seconds), id])
            case .failed:
                try db.execute(
                    sql: "UPDATE webhook_deliveries SET state = 'failed', attempts = attempts + 1 WHERE id = ?",
                    arguments: [id])
                try db.execute(
                    sql: "UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = \(endpoint)",
                    arguments: [attempt.at, id])
            }
        }
    }

    /// The newest `limit` deliveries to endpoint `endpointID`, newest first.
    public func webhookDeliveries(endpointID: String, limit: Int) async throws -> [WebhookDeliveryRecord] {
        try await pool.read { db in
            try WebhookDeliveryRecord.fetchAll(
                db,
                sql: """
                    SELECT d.id, ev.id AS event_id, ev.type, d.state, d.attempts, d.next_at, d.created_at,
                        (SELECT status FROM webhook_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1)
                            AS last_status
                    FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq
                    WHERE d.endpoint_id = ? ORDER BY d.id DESC LIMIT ?
                    """, arguments: [endpointID, limit])
        }
    }

    /// The tries of delivery `id` to endpoint `endpointID`, oldest first.
    public func webhookAttempts(deliveryID id: Int64, endpointID: String) async throws -> [WebhookAttemptRecord] {
        try await pool.read { db in
            try WebhookAttemptRecord.fetchAll(
                db,
                sql: """
                    SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                    WHERE a.delivery_id = ? AND d.endpoint_id = ? ORDER BY a.id
                    """, arguments: [id, endpointID])
        }
    }

    /// A new delivery of delivery `id`'s event (the same `webhook-id`) to its endpoint, due now;
    /// false when endpoint `endpointID` has no such delivery.
    public func replayWebhookDelivery(id: Int64, endpointID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_deliveries (event_seq, endpoint_id, chain, next_at, created_at)
                    SELECT event_seq, endpoint_id, chain, \(Self.sqlNow), \(Self.sqlNow)
                    FROM webhook_deliveries WHERE id = ? AND endpoint_id = ?
                    """, arguments: [id, endpointID])
            return db.changesCount > 0
        }
    }

    /// SQLite's clock as the webhook tables store dates.
    static let sqlNow = "strftime('%Y-%m-%d %H:%M:%f', 'now')"

    /// A date modifier of `seconds` (`+1.500 seconds`).
    private static func offset(_ seconds: TimeInterval) -> String {
        String(format: "%+.3f seconds", seconds)
    }
}
