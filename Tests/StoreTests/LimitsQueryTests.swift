import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// Issue 9, item 9: the store side of the limits — rate events, code tries, idle sessions, used token ids.
@Suite struct LimitsQueryTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    @Test func rateEventsAreCountedInTheirWindowAndSurviveReopening() async throws {
        let now = now
        let ids = try await test.database.withRateLedger { ledger in
            try (0..<3).map { second in try ledger.record(key: "k", at: now.addingTimeInterval(Double(second))) }
        }
        let reopened = try AppDatabase(path: test.path)
        let window = try await reopened.rateWindow(key: "k", since: now)
        #expect(window == RateWindow(count: 2, oldest: now.addingTimeInterval(1), newest: now.addingTimeInterval(2)))
        #expect(try await reopened.rateWindow(key: "other", since: .distantPast).count == 0)
        try await reopened.withRateLedger { ledger in try ledger.forget(ids: [ids[2]]) }
        #expect(try await reopened.rateWindow(key: "k", since: .distantPast).count == 2)
        try await reopened.withRateLedger { ledger in try ledger.forget(key: "k") }
        #expect(try await reopened.rateWindow(key: "k", since: .distantPast).count == 0)
    }

    @Test func parallelTakesNeverExceedTheLimit() async throws {
        let database = test.database
        let now = now
        let refused = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await database.withRateLedger { ledger in
                        guard try ledger.window(key: "ip", since: .distantPast).count < 7 else { return true }
                        try ledger.record(key: "ip", at: now)
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(refused == 13)
        #expect(try await database.rateWindow(key: "ip", since: .distantPast).count == 7)
    }

    @Test func aSessionUnusedPastTheIdleTimeoutIsNotActive() async throws {
        let session = try await test.database.createSession(
            NewSession(
                tokenHash: "t", userID: UserID("alice0000000000"), userAgent: "UA", ip: "127.0.0.1",
                createdAt: now, expiresAt: now.addingTimeInterval(7 * 86_400)))
        let idle: TimeInterval = 86_400
        #expect(
            try await test.database.activeSession(tokenHash: "t", now: now.addingTimeInterval(idle - 1), idleTimeout: idle) != nil
        )
        #expect(
            try await test.database.activeSession(tokenHash: "t", now: now.addingTimeInterval(idle + 1), idleTimeout: idle) == nil
        )
        try await test.database.touchSession(id: session.id, at: now.addingTimeInterval(idle - 1))
        #expect(
            try await test.database.activeSessionWithCredential(
                tokenHash: "t", now: now.addingTimeInterval(idle + 1), idleTimeout: idle) != nil)
        #expect(
            try await test.database.activeSession(tokenHash: "t", now: now.addingTimeInterval(3 * idle)) != nil,
            "no idle rule asked")
    }

    @Test func aTokenIDIsUsableOnceUntilItExpires() async throws {
        let id = String(repeating: "a", count: 64)
        let expires = now.addingTimeInterval(600)
        #expect(try await test.database.markTokenIDUsed(idHash: id, expiresAt: expires, now: now))
        #expect(!(try await test.database.markTokenIDUsed(idHash: id, expiresAt: expires, now: now.addingTimeInterval(599))))
        #expect(try await test.database.markTokenIDUsed(idHash: id, expiresAt: expires.addingTimeInterval(600), now: expires))
    }
}
