import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Linking a provider gives the account a way in on the session's word, as a first password and a new
/// passkey do: only in a recent sign-in (`RecentSignIn`), so a browser left signed in, or a taken
/// cookie, cannot link its holder's own provider account and keep a way in after the session ends.
@Suite(.stopsWhatItStarts) struct RecentSignInLinkTests {
    @Test func aLinkNeedsARecentSignIn() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let owner = gatehouse.browser()
        try await gatehouse.signUp(owner, email: "owner@example.com")
        let ownerID = try #require(try await gatehouse.database.user(email: "owner@example.com")?.id)

        // A flow started while the sign-in was recent (14:50 in), finished after the window (15:10 in,
        // well within the provider's code and the flow's own lifetimes): the callback refuses.
        gatehouse.clock.advance(14 * 60 + 50)
        let callback = try await gatehouse.chooseAtTestChooser(
            owner, provider: "acme", subject: "late", email: "owner@example.com", link: true)
        gatehouse.clock.advance(20)
        let late = try await owner.get(callback, follow: false)
        #expect(late.status == 403 && late.text.contains("To link a provider, sign in again first"), "\(late.status)")
        #expect(try await gatehouse.database.externalAuths(userID: ownerID).isEmpty)

        // The linked page offers "Sign in again" instead of Link, and a start is not sent to the provider.
        let page = try await owner.get("/account/linked")
        #expect(page.text.contains("data-sign-in-again") && !page.text.contains("data-link=\"acme\""))
        let refused = try await owner.get("/auth/oauth/acme?link=1", follow: false)
        #expect(refused.status == 403 && refused.header("Location") == nil)
        #expect(try await owner.get("/account", follow: false).status == 200, "still signed in")

        // Signed in again, the link goes through.
        let fresh = gatehouse.browser()
        _ = try await fresh.get("/auth/sign-in")
        #expect(
            try await fresh.post("/auth/sign-in", [("email", "owner@example.com"), ("password", "correct horse battery")]).status
                == 303)
        let linked = try await gatehouse.signInAtTestChooser(
            fresh, provider: "acme", subject: "fresh", email: "owner@example.com", link: true)
        #expect(linked.header("Location") == "/account/linked?notice=linked", "\(linked.status)")
        #expect(try await gatehouse.database.externalAuths(userID: ownerID).map(\.provider) == ["acme"])
        await gatehouse.stop()
    }
}
