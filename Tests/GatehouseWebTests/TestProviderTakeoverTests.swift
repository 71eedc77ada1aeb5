import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 9, item 2: anyone at the test provider's chooser can claim any address as verified. Such an
/// identity must never reach an existing account by email; only a signed-in "link" attaches it.
@Suite(.stopsWhatItStarts) struct TestProviderTakeoverTests {
    /// The chooser of provider "acme" as `browser`, with a made-up person claiming `email` as verified.
    private func signInAsMadeUpPerson(_ gatehouse: OAuthGatehouse, _ browser: Browser, email: String, link: Bool = false)
        async throws -> TestResponse
    {
        try await gatehouse.signInAtTestChooser(browser, provider: "acme", subject: "made-up", email: email, link: link)
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
