import Foundation
import GRDB

extension AppDatabase {
    /// Keeps `attempt` of delivery `id` and applies its outcome, in one transaction (of statements
    /// kept prepared: the worker writes one per try).
    public func recordWebhookAttempt(_ attempt: WebhookAttemptRecord, of id: Int64, outcome: WebhookAttemptOutcome)
        async throws
    {
        let headers = String(decoding: try JSONEncoder().encode(attempt.requestHeaders), as: UTF8.self)
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO webhook_attempts (delivery_id, request_headers, request_body, status, response_body, error,
                        duration_ms, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                id, headers, attempt.requestBody, attempt.status, attempt.responseBody, attempt.error,
                attempt.durationMilliseconds, attempt.at
            ])
            let endpoint = "(SELECT endpoint_id FROM webhook_deliveries WHERE id = ?)"
            switch outcome {
            case .delivered:
                try db.cachedStatement(
                    sql: "UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1 WHERE id = ?"
                ).execute(arguments: [id])
                try db.cachedStatement(
                    sql: "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = \(endpoint) AND failing_since IS NOT NULL"
                ).execute(arguments: [id])
            case .retry(let seconds):
                try db.cachedStatement(
                    sql: """
                        UPDATE webhook_deliveries SET attempts = attempts + 1,
                            next_at = strftime('%Y-%m-%d %H:%M:%f', 'now', ?) WHERE id = ?
                        """
                ).execute(arguments: [Self.offset(seconds), id])
            case .failed:
                try db.cachedStatement(
                    sql: "UPDATE webhook_deliveries SET state = 'failed', attempts = attempts + 1 WHERE id = ?"
                ).execute(arguments: [id])
                try db.cachedStatement(
                    sql: "UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = \(endpoint)"
                ).execute(arguments: [attempt.at, id])
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
    static func offset(_ seconds: TimeInterval) -> String {
        String(format: "%+.3f seconds", seconds)
    }
}
