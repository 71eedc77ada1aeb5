import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 9, item 2: anyone at the test provider's chooser can claim any address as verified. Such an
/// identity must never reach an existing account by email; only a signed-in "link" attaches it.
@Suite(.stopsWhatItStarts) struct TestProviderTakeoverTests {
    /// Walks the test provider's chooser as `browser`, adding an account with `email` (ticked
    /// "verified"), and returns the callback's answer.
    private func signInAsMadeUpPerson(_ gatehouse: OAuthGatehouse, _ browser: Browser, email: String, link: Bool = false)
        async throws -> TestResponse
    {
        let toProvider = try await browser.get(link ? "/auth/oauth/acme?link=1" : "/auth/oauth/acme", follow: false)
        let chooserPath = try #require(toProvider.header("Location"))
        _ = try await browser.get(chooserPath)
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"] {
            fields.append((name, try #require(queryItem(name, in: "http://x" + chooserPath))))
        }
        let chosen = try await browser.post(
            "/_/test-idp/acme/authorize",
            fields + [("action", "add"), ("email", email), ("name", "Mallory"), ("subject", "made-up"), ("email_verified", "on")])
        let callback = try #require(chosen.header("Location"), "chooser answered \(chosen.status): \(chosen.text.prefix(300))")
        return try await browser.get(pathAndQuery(callback), follow: false)
    }

    @Test func aMadeUpVerifiedIdentityCannotTakeOverAnExistingAccount() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let victim = gatehouse.browser()
        try await gatehouse.signUp(victim, email: "victim@example.com")
        let victimID = try #require(try await gatehouse.database.user(email: "victim@example.com")?.id)

        let attacker = gatehouse.browser()
        let answer = try await signInAsMadeUpPerson(gatehouse, attacker, email: "victim@example.com")
        #expect(answer.status == 409, "the callback answered \(answer.status) \(answer.header("Location") ?? "")")
        #expect(try await attacker.get("/account", follow: false).status == 303, "the attacker is signed in")
        #expect(try await gatehouse.database.externalAuths(userID: victimID).isEmpty, "the identity was linked")

        // The owner may still link a test identity on purpose, signed in.
        let linked = try await signInAsMadeUpPerson(gatehouse, victim, email: "victim@example.com", link: true)
        #expect(linked.status == 303, "\(linked.status)")
        #expect(try await gatehouse.database.externalAuths(userID: victimID).map(\.provider) == ["acme"])
        await gatehouse.stop()
    }

    @Test func aMadeUpIdentityWithANewAddressStillCreatesAnAccount() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let browser = gatehouse.browser()
        let answer = try await signInAsMadeUpPerson(gatehouse, browser, email: "new-person@example.com")
        #expect(answer.status == 303 && answer.header("Location") == "/account", "\(answer.status)")
        #expect(try await gatehouse.database.user(email: "new-person@example.com")?.verified == true)
        await gatehouse.stop()
    }
}
