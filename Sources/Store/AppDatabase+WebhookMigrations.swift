import GRDB

extension AppDatabase {
    /// Webhooks (issue 48). `webhook_endpoints`: where events go, each with its `whsec_` secret
    /// sealed (and the previous one during a rotation's overlap). `webhook_events`: the outbox, one
    /// row per event, written in the transaction of the change it reports — by the triggers here
    /// for an account row's insert, update (profile, email, verified, disabled) and delete, by the
    /// audit trail's write for every other act — and only while an enabled endpoint exists.
    /// `context` (way in, actor) is null until the act's audit row, a moment later, fills it in.
    /// `webhook_deliveries`: one per event and endpoint whose filter takes it, made by the trigger
    /// on `webhook_events` in the same transaction; `webhook_attempts`: each try's request and
    /// response as the inspector shows them.
    static func registerWebhookMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("w1-webhooks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhook_endpoints (
                        id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
                        url TEXT NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
                        events TEXT CHECK (events IS NULL OR (json_valid(events) AND json_type(events) = 'array')),
                        secret BLOB NOT NULL CHECK (length(secret) > 0),
                        previous_secret BLOB,
                        previous_until DATETIME,
                        enabled BOOLEAN NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
                        svix_headers BOOLEAN NOT NULL DEFAULT 0 CHECK (svix_headers IN (0, 1)),
                        headers TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(headers) AND json_type(headers) = 'object'),
                        failing_since DATETIME,
                        created_at DATETIME NOT NULL
                    );
                    CREATE TABLE webhook_events (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE CHECK (length(id) > 0),
                        type TEXT NOT NULL CHECK (length(type) > 0),
                        user_id TEXT,
                        user TEXT CHECK (user IS NULL OR json_valid(user)),
                        context TEXT CHECK (context IS NULL OR json_valid(context)),
                        only_endpoint TEXT,
                        created_at DATETIME NOT NULL
                    );
                    CREATE INDEX webhook_events_unclaimed ON webhook_events(user_id) WHERE context IS NULL;
                    CREATE TABLE webhook_deliveries (
                        id INTEGER PRIMARY KEY,
                        event_seq INTEGER NOT NULL REFERENCES webhook_events(seq) ON DELETE CASCADE,
                        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                        chain TEXT NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        next_at DATETIME NOT NULL,
                        created_at DATETIME NOT NULL
                    );
                    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(next_at) WHERE state = 'pending';
                    CREATE INDEX webhook_deliveries_chain ON webhook_deliveries(endpoint_id, chain, id) WHERE state = 'pending';
                    CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);
                    CREATE TABLE webhook_attempts (
                        id INTEGER PRIMARY KEY,
                        delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
                        request_headers TEXT NOT NULL CHECK (json_valid(request_headers)),
                        request_body TEXT NOT NULL,
                        status INTEGER,
                        response_body TEXT,
                        error TEXT,
                        duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
                        at DATETIME NOT NULL
                    );
                    CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);
                    CREATE TRIGGER webhook_fan_out AFTER INSERT ON webhook_events BEGIN
                        INSERT INTO webhook_deliveries (event_seq, endpoint_id, chain, next_at, created_at)
                        SELECT new.seq, e.id, coalesce(new.user_id, ''), new.created_at, new.created_at
                        FROM webhook_endpoints e
                        WHERE e.enabled AND (new.only_endpoint IS NULL OR e.id = new.only_endpoint)
                            AND (e.events IS NULL OR EXISTS (SELECT 1 FROM json_each(e.events) WHERE value = new.type));
                    END;
                    CREATE TRIGGER webhook_user_created AFTER INSERT ON users WHEN \(anyEndpoint) BEGIN
                        \(outboxRow("'user.created'", "new."))
                    END;
                    CREATE TRIGGER webhook_user_updated AFTER UPDATE ON users WHEN \(anyEndpoint)
                        AND (old.email IS NOT new.email OR old.verified IS NOT new.verified
                            OR old.profile IS NOT new.profile OR old.disabled IS NOT new.disabled) BEGIN
                        \(outboxRow("'user.updated'", "new."))
                        \(outboxRow("'email.changed'", "new.", when: "old.email_normalized IS NOT new.email_normalized"))
                    END;
                    CREATE TRIGGER webhook_user_deleted AFTER DELETE ON users WHEN \(anyEndpoint) BEGIN
                        \(outboxRow("'user.deleted'", "old."))
                    END;
                    """)
        }
    }

    /// True while an enabled endpoint exists: without one, no event is written.
    static let anyEndpoint = "EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled)"

    /// The insert of an unclaimed event of `type` (an SQL expression) about the `users` row at
    /// `prefix`, when `condition` holds.
    private static func outboxRow(_ type: String, _ prefix: String, when condition: String = "1") -> String {
        """
        INSERT INTO webhook_events (id, type, user_id, user, created_at)
        SELECT \(newEventID), \(type), \(prefix)id, \(webhookUser(prefix)), \(sqlNow) WHERE \(condition);
        """
    }

    /// A fresh event id (`msg_` and 24 hex digits), the `webhook-id` every try of it carries.
    static let newEventID = "'msg_' || lower(hex(randomblob(12)))"

    /// A `users` row at `prefix` (`new.`, `old.`, or `users.` in a query) as the admin API shows an
    /// account (`UserExport.Row`): the same keys, tags included, dates as ISO 8601.
    static func webhookUser(_ prefix: String) -> String {
        """
        json_object('id', \(prefix)id, 'email', \(prefix)email,
            'emailVerified', json(CASE WHEN \(prefix)verified THEN 'true' ELSE 'false' END),
            'disabled', json(CASE WHEN \(prefix)disabled THEN 'true' ELSE 'false' END),
            'profile', json(\(prefix)profile),
            'tags', (SELECT json_group_array(tag) FROM (SELECT tag FROM user_tags WHERE user_id = \(prefix)id ORDER BY tag)),
            'createdAt', replace(\(prefix)created_at, ' ', 'T') || 'Z', 'updatedAt', replace(\(prefix)updated_at, ' ', 'T') || 'Z')
        """
    }
}
