import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// The sweep behind `session.ended` with `reason` `expired` (migration `w2-webhook-session-expiry`):
/// a person's session with a fixed end is reported once when it lapses — not one that renews with
/// a refresh token, nor the backend's own row behind it, nor one revoked first, nor one that lapsed
/// before any endpoint existed.
@Suite struct SessionExpiryReportTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    /// A session of `user` ending at `end`; `front` rows keep a backend session sealed (a
    /// credential), as every row a front-end hands out does.
    @discardableResult
    func session(_ user: String, ending end: TimeInterval, refreshable: Bool = false, front: Bool = true) async throws
        -> Int64
    {
        let record = try await test.database.createSession(
            NewSession(
                tokenHash: UUID().uuidString, refreshTokenHash: refreshable ? UUID().uuidString : nil, userID: UserID(user),
                userAgent: nil, ip: nil, createdAt: now, expiresAt: now.addingTimeInterval(end)))
        if front { try await test.database.saveCredential("sealed", sessionID: record.id) }
        return record.id
    }

    func endedSessions() throws -> [String] {
        try test.database.pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT user_id || ' ' || json_extract(context, '$.reason') FROM webhook_events
                    WHERE type = 'session.ended' ORDER BY seq
                    """)
        }
    }

    @Test func aLapsedFixedEndSessionIsReportedOnceAndNothingElseIs() async throws {
        _ = try await test.database.insertUser(
            UserRecord(
                id: UserID("u1"), email: "a@example.com", passwordHash: "h", verified: true, profile: Profile(),
                createdAt: now, updatedAt: now), verificationToken: nil)
        try await session("before", ending: -10)
        try await test.database.saveWebhookEndpoint(
            WebhookEndpointRecord(
                id: "ep", url: "http://127.0.0.1:9/hook", events: nil, secret: [1], svixHeaders: false, headers: [:],
                createdAt: now))
        try await session("u1", ending: 60)
        try await session("refreshing", ending: 30, refreshable: true)
        try await session("backing", ending: 30, front: false)
        let revoked = try await session("revoked", ending: 30)
        try await test.database.revokeSession(id: revoked, at: now)
        try await session("later", ending: 600)

        #expect(try await test.database.nextSessionExpiry() == now.addingTimeInterval(60))
        #expect(try await test.database.reportExpiredSessions(now: now.addingTimeInterval(59)) == 0)
        #expect(try await test.database.reportExpiredSessions(now: now.addingTimeInterval(61)) == 1)
        #expect(try await test.database.reportExpiredSessions(now: now.addingTimeInterval(120)) == 0)
        #expect(try endedSessions() == ["u1 expired"])
        #expect(try await test.database.nextSessionExpiry() == now.addingTimeInterval(600))
        let user = try await test.database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT json_extract(user, '$.email') FROM webhook_events")
        }
        #expect(user == "a@example.com")
    }

    @Test func withoutAnEnabledEndpointNothingIsDueOrReported() async throws {
        try await session("u1", ending: -10)
        #expect(try await test.database.nextSessionExpiry() == nil)
        #expect(try await test.database.reportExpiredSessions(now: now) == 0)
        #expect(try endedSessions().isEmpty)
    }
}
