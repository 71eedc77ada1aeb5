import Foundation
import GRDB
import HTTPTestClient
import TestScope
import Testing

@testable import Store

/// Browser sessions hold the backend's own session (issue 8). The embedded backend's access tokens
/// last an hour and renew with a rotating refresh token, whose reuse revokes the session — so
/// pages loaded in parallel after expiry must renew once between them, not once each.
@Suite(.stopsWhatItStarts) struct BrowserSessionRenewalTests {
    private func signedIn(_ gatehouse: TestGatehouse) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", "renew@example.com"), ("password", "quiet-otter-123")])
        #expect(try await browser.get("/account", follow: false).status == 200)
        return browser
    }

    @Test func parallelPageLoadsAfterTheAccessTokenExpiredRenewOnceAndStaySignedIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await signedIn(gatehouse)
        gatehouse.clock.advance(2 * 3600)  // the backend's 1-hour access token has expired

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await browser.get("/account", follow: false).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8), "a parallel load lost the session: \(statuses)")
        // Still signed in afterwards, and again after the renewed token expires too.
        #expect(try await browser.get("/account", follow: false).status == 200)
        gatehouse.clock.advance(2 * 3600)
        #expect(try await browser.get("/account", follow: false).status == 200)
        await gatehouse.stop()
    }

    @Test func revokingTheBackendSessionSignsTheBrowserOutOnTheNextRequest() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await signedIn(gatehouse)
        // Revoke only the backend's session behind the browser: its browser session row stays live,
        // but the backend refuses the session, so the page signs the browser out.
        let revoked = try await gatehouse.database.pool.write { db in
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE user_agent = ? AND revoked_at IS NULL",
                arguments: [gatehouse.clock.now, NewSession.browserBackingUserAgent])
            return db.changesCount
        }
        #expect(revoked == 1)
        #expect(try await browser.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }
}
