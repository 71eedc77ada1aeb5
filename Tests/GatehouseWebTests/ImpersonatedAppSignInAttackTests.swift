import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 22, item 8: a superuser viewing the pages as a user cannot hand an app a sign-in code
/// from the hosted page — the exchanged session would be an ordinary, refreshable app session that
/// outlives the impersonation and names no impersonator.
@Suite(.stopsWhatItStarts) struct ImpersonatedAppSignInAttackTests {
    @Test func anImpersonatedBrowserGetsNoAppCode() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/apps", ["id": "sample", "name": "Sample app", "callbackURLs": ["yourapp://auth/callback"]])
        try await gatehouse.signUp(gatehouse.browser(), email: "held@example.com")
        let userID = try #require(try await gatehouse.database.user(email: "held@example.com")?.id.rawValue)

        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/users/\(userID)")
        let opened = try await staff.post("/_/users/\(userID)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        let query = FormEncoding.encode([
            ("redirect", "yourapp://auth/callback"), ("client_type", "mobile"),
            ("code_challenge", try PKCE.challenge(for: "verifier-0123456789-abcdefghijklmnopqrstuvwxyz"))
        ])
        let page = try await staff.get("/auth/sign-in?" + query, follow: false)
        #expect(page.header("Location")?.contains("insforge_code") != true, "no code for the app")
        #expect(page.status == 403, "\(page.status)")
        #expect(page.text.contains("impersonat"), "the page says why")
        #expect(try await gatehouse.auditTypes().contains("app.code_issued") == false)
        await gatehouse.stop()
    }
}
