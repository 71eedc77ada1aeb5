import AuthCore
import Foundation
import Testing

@testable import Store

/// The session queries the web layer relies on.
@Suite struct SessionQueryTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let alice = UserID("alice0000000000")

    init() throws { test = try TestDatabase() }

    func newSession(_ tokenHash: String, user: UserID, lifetime: TimeInterval = 3600) -> NewSession {
        NewSession(
            tokenHash: tokenHash, userID: user, userAgent: "UA", ip: "127.0.0.1",
            createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
    }

    @Test func createdSessionIsActiveUntilItExpires() async throws {
        let session = try await test.database.createSession(newSession("t1", user: alice))
        #expect(session.lastUsedAt == now && session.userID == alice)
        #expect(try await test.database.sessions(userID: alice) == [session])
        #expect(try await test.database.activeSession(tokenHash: "t1", now: now)?.id == session.id)
        #expect(try await test.database.activeSession(tokenHash: "t1", now: now.addingTimeInterval(3600)) == nil)
        #expect(try await test.database.activeSession(tokenHash: "other", now: now) == nil)
    }

    @Test func touchAndRevoke() async throws {
        let session = try await test.database.createSession(newSession("t1", user: alice))
        let id = session.id
        try await test.database.touchSession(id: id, at: now.addingTimeInterval(60))
        #expect(try await test.database.activeSession(tokenHash: "t1", now: now)?.lastUsedAt == now.addingTimeInterval(60))
        try await test.database.revokeSession(id: id, at: now.addingTimeInterval(120))
        try await test.database.revokeSession(id: id, at: now.addingTimeInterval(180))
        #expect(try await test.database.activeSession(tokenHash: "t1", now: now) == nil)
        let stored = try await test.database.sessions(userID: alice)
        #expect(stored.map(\.revokedAt) == [now.addingTimeInterval(120)])
        #expect(stored.first?.isActive(at: now) == false)
    }

    @Test func revokeAllOfOneUserLeavesOthers() async throws {
        let bob = UserID("bob000000000000")
        for token in ["a", "b", "c"] { _ = try await test.database.createSession(newSession(token, user: alice)) }
        _ = try await test.database.createSession(newSession("d", user: bob))
        #expect(try await test.database.revokeSessions(userID: alice, at: now) == 3)
        #expect(try await test.database.revokeSessions(userID: alice, at: now) == 0)
        #expect(try await test.database.activeSession(tokenHash: "d", now: now) != nil)
        #expect(try await test.database.sessions(userID: alice).map(\.tokenHash) == ["c", "b", "a"])
    }

    @Test func tokenHashesAreUnique() async throws {
        _ = try await test.database.createSession(newSession("same", user: alice))
        await #expect(throws: (any Error).self) {
            try await test.database.createSession(newSession("same", user: alice))
        }
    }
}
