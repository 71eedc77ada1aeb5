import Foundation
import GRDB

extension AppDatabase {
    /// Saves `endpoint` as given: a new one, or an edit of the one with its id.
    public func saveWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws {
        let events = try endpoint.events.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let headers = String(decoding: try JSONEncoder().encode(endpoint.headers), as: UTF8.self)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (id, url, events, secret, previous_secret, previous_until, enabled,
                        svix_headers, headers, failing_since, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET url = excluded.url, events = excluded.events, secret = excluded.secret,
                        previous_secret = excluded.previous_secret, previous_until = excluded.previous_until,
                        enabled = excluded.enabled, svix_headers = excluded.svix_headers, headers = excluded.headers,
                        failing_since = excluded.failing_since
                    """,
                arguments: [
                    endpoint.id, endpoint.url, events, Data(endpoint.secret), endpoint.previousSecret.map { Data($0) },
                    endpoint.previousUntil, endpoint.enabled, endpoint.svixHeaders, headers, endpoint.failingSince,
                    endpoint.createdAt
                ])
        }
    }

    /// Every endpoint, oldest first.
    public func webhookEndpoints() async throws -> [WebhookEndpointRecord] {
        try await pool.read { db in
            try WebhookEndpointRecord.fetchAll(db, sql: "SELECT * FROM webhook_endpoints ORDER BY created_at, id")
        }
    }

    public func webhookEndpoint(id: String) async throws -> WebhookEndpointRecord? {
        try await pool.read { db in
            try WebhookEndpointRecord.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE id = ?", arguments: [id])
        }
    }

    /// Deletes the endpoint with its deliveries; false when there was none.
    public func deleteWebhookEndpoint(id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }
}
