import AuthCore
import GRDB

/// An event an act's audit row brings to the webhook outbox (`AppDatabase.recordAudit(_:webhooks:)`).
public struct NewWebhookEvent: Sendable, Equatable {
    /// The event's type (`user.created`, `session.ended`, …).
    public var type: String
    /// The account it is about, when there is one: its row is the event's `data.user`.
    public var userID: String?
    /// The way in, the actor and the act's details, as `data` carries them.
    public var context: [String: JSONValue]

    public init(type: String, userID: String?, context: [String: JSONValue]) {
        (self.type, self.userID, self.context) = (type, userID, context)
    }
}

extension AppDatabase {
    /// Records `event` and, while an enabled endpoint exists, `webhooks` in one transaction: first
    /// the account's events the `users` triggers wrote for this act are claimed (given the first
    /// event's context); each of `webhooks` is written only when none of them has its type already.
    /// True when the outbox changed (the delivery worker has work).
    public func recordAudit(_ event: NewAuditEvent, webhooks: [NewWebhookEvent]) async throws -> Bool {
        try await pool.write { db in
            try Self.recordAudit(event, in: db)
            guard let first = webhooks.first, try Bool.fetchOne(db.cachedStatement(sql: "SELECT \(Self.anyEndpoint)")) == true
            else {
                return false
            }
            var claimed: [String] = []
            if let user = first.userID {
                claimed = try String.fetchAll(
                    db.cachedStatement(
                        sql: "UPDATE webhook_events SET context = ? WHERE user_id = ? AND context IS NULL RETURNING type"),
                    arguments: [try Self.json(first.context), user])
            }
            for webhook in webhooks where !claimed.contains(webhook.type) {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO webhook_events (id, type, user_id, user, context, created_at)
                        VALUES (\(Self.newEventID), ?, ?, (SELECT \(Self.webhookUser("users.")) FROM users WHERE id = ?), ?,
                            \(Self.sqlNow))
                        """
                ).execute(arguments: [webhook.type, webhook.userID, webhook.userID, try Self.json(webhook.context)])
            }
            return true
        }
    }

    /// A test event of `type` for the endpoint `endpointID` alone, as an act would make it, sent
    /// whatever the endpoint's filter says (the fan-out trigger honours it; the delivery is made here).
    public func enqueueTestWebhook(type: String, endpointID: String, context: [String: JSONValue]) async throws {
        let context = try Self.json(context)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_events (id, type, context, only_endpoint, created_at)
                    VALUES (\(Self.newEventID), ?, ?, ?, \(Self.sqlNow))
                    """, arguments: [type, context, endpointID])
            let seq = db.lastInsertedRowID
            try db.execute(
                sql: """
                    INSERT INTO webhook_deliveries (event_seq, endpoint_id, chain, next_at, created_at)
                    SELECT ?, ?, '', \(Self.sqlNow), \(Self.sqlNow)
                    WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE event_seq = ?)
                    """, arguments: [seq, endpointID, seq])
        }
    }
}
