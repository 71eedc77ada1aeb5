import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The webhook outbox (migration `w1-webhooks`): an account's change writes its event and the
/// endpoints' deliveries in the change's own transaction — so a change that rolls back leaves no
/// event, and one that commits has its event even if the process dies the next instant — and
/// only while an enabled endpoint exists; the act's audit row then claims it.
@Suite struct WebhookOutboxTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    func user(_ id: String, _ email: String) -> UserRecord {
        UserRecord(
            id: UserID(id), email: email, passwordHash: "h", verified: false, profile: Profile(["name": .string("Ann")]),
            createdAt: now, updatedAt: now)
    }

    func endpoint(_ id: String, events: [String]? = nil, enabled: Bool = true) async throws {
        var record = WebhookEndpointRecord(
            id: id, url: "http://127.0.0.1:9/hook", events: events, secret: [1], svixHeaders: false, headers: [:], createdAt: now)
        record.enabled = enabled
        try await test.database.saveWebhookEndpoint(record)
    }

    func rows() throws -> [Row] {
        try test.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT ev.type, ev.user_id, ev.user, ev.context, group_concat(d.endpoint_id) AS endpoints
                    FROM webhook_events ev LEFT JOIN webhook_deliveries d ON d.event_seq = ev.seq
                    GROUP BY ev.seq ORDER BY ev.seq
                    """)
        }
    }

    @Test func noEnabledEndpointWritesNoEvent() async throws {
        try await endpoint("ep_off", enabled: false)
        _ = try await test.database.insertUser(user("u1", "a@example.com"), verificationToken: nil)
        #expect(try rows().isEmpty)
    }

    @Test func anAccountsChangeWritesItsEventAndDeliveriesInItsTransaction() async throws {
        try await endpoint("ep_all")
        try await endpoint("ep_deleted", events: ["user.deleted"])
        _ = try await test.database.insertUser(user("u1", "a@example.com"), verificationToken: nil)
        let written = try rows()
        #expect(written.map { $0["type"] as String } == ["user.created"])
        #expect(written.first?["endpoints"] as String? == "ep_all")
        #expect(written.first?["context"] as String? == nil)
        let shown = try #require(JSONValue(parsing: written.first?["user"] ?? ""))
        #expect(
            shown
                == .object([
                    "id": "u1", "email": "a@example.com", "emailVerified": .bool(false), "disabled": .bool(false),
                    "profile": .object(["name": "Ann"]), "tags": .array([]), "createdAt": "2027-01-15T08:00:00.000Z",
                    "updatedAt": "2027-01-15T08:00:00.000Z"
                ]))
    }

    @Test func aChangeThatRollsBackLeavesNoEvent() async throws {
        struct Abandoned: Error {}
        try await endpoint("ep_all")
        let record = user("u1", "a@example.com")
        await #expect(throws: Abandoned.self) {
            try await test.database.pool.write { db in
                try record.insert(db)
                throw Abandoned()
            }
        }
        #expect(try rows().isEmpty)
    }

    @Test func theActsAuditRowClaimsTheChangesEventsInsteadOfWritingAnother() async throws {
        try await endpoint("ep_all")
        _ = try await test.database.insertUser(user("u1", "a@example.com"), verificationToken: nil)
        let audit = NewAuditEvent(type: "user.signed_up", actor: "u1", subject: "u1", at: now)
        let changed = try await test.database.recordAudit(
            audit, webhooks: [NewWebhookEvent(type: "user.created", userID: "u1", context: ["wayIn": "pages"])])
        #expect(changed)
        let claimed = try rows()
        #expect(claimed.count == 1 && claimed.first?["context"] as String? == #"{"wayIn":"pages"}"#)
        // An act with no change of its own (a sign-in) writes its event with the account as it is.
        _ = try await test.database.recordAudit(
            audit, webhooks: [NewWebhookEvent(type: "session.created", userID: "u1", context: ["wayIn": "pages"])])
        let both = try rows()
        #expect(both.map { $0["type"] as String } == ["user.created", "session.created"])
        #expect((both.last?["user"] as String?)?.contains("a@example.com") == true)
    }

    @Test func aProfileEmailOrDeleteIsAnEventAndAPasswordRehashIsNot() async throws {
        try await endpoint("ep_all")
        _ = try await test.database.insertUser(user("u1", "a@example.com"), verificationToken: nil)
        try await test.database.pool.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = 'h2' WHERE id = 'u1'")
            try db.execute(sql: "UPDATE users SET email = 'b@example.com', email_normalized = 'b@example.com' WHERE id = 'u1'")
            try db.execute(sql: "DELETE FROM users WHERE id = 'u1'")
        }
        #expect(try rows().map { $0["type"] as String } == ["user.created", "user.updated", "email.changed", "user.deleted"])
    }
}
