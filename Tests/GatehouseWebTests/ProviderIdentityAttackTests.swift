import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 22, items 6 and 9: what a provider link is worth.
///
/// 6. Account pre-hijacking: a provider that does not vouch for the address creates the account
///    with someone else's address and the attacker's link. Once the owner proves the address (here:
///    a password reset through the mailed link, by the pages and by the PocketBase API, or by the
///    mailed code through the InsForge API), that link and its sessions must be gone.
/// 9. A provider switched from live to test mode: its chooser lets anyone type any subject, so a
///    live link's subject typed there must not sign in as the live link's owner.
@Suite(.serialized, .stopsWhatItStarts) struct ProviderIdentityAttackTests {
    /// A Gatehouse whose live provider "mock" is a fresh oidc-provider-mock knowing `subject`.
    private func liveMock(_ subject: String, _ claims: [String: Any]) async throws -> (OAuthGatehouse, OIDCProviderMock) {
        let mock = try await OIDCProviderMock()
        let gatehouse = try await OAuthGatehouse()
        try await mock.serveAsLiveProvider(to: gatehouse, person: subject, claims)
        return (gatehouse, mock)
    }

    /// A sign-in through the live mock as `subject`: the callback's answer.
    private func signInThroughMock(_ browser: Browser, _ mock: OIDCProviderMock, subject: String) async throws
        -> TestResponse
    {
        let start = try await browser.get("/auth/oauth/mock", follow: false)
        guard let location = start.header("Location") else { throw TestFailure("start answered \(start.status)") }
        return try await browser.get(pathAndQuery(try await mock.authorize(location, as: subject)), follow: false)
    }

    /// The attacker's browser, signed up as victim@example.com through provider "acme" in test mode,
    /// which vouches for no address.
    private func attackerSignedUpAtTheTestChooser(_ gatehouse: OAuthGatehouse) async throws -> (OAuthGatehouse, Browser) {
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let attacker = gatehouse.browser()
        let created = try await gatehouse.signInAtTestChooser(
            attacker, provider: "acme", subject: "mallory", email: "victim@example.com", verified: false)
        #expect(created.status == 303 && created.header("Location") == "/account", "sign-in answered \(created.status)")
        return (gatehouse, attacker)
    }

    /// The token of the newest reset link mailed to `email`.
    private func resetLinkToken(_ gatehouse: OAuthGatehouse, _ email: String) async throws -> String {
        let mails = try await gatehouse.mailbox.mails(to: email, limit: 10)
        guard let link = mails.first(where: { $0.subject == "Reset your Gatehouse password" })?.link,
            let token = queryItem("token", in: link)
        else { throw TestFailure("no reset link mailed to \(email)") }
        return token
    }

    /// After the owner's reset: the attacker's browser is signed out, their provider identity
    /// reaches the account no more, and the audit log says why.
    private func expectTheAttackerLockedOut(
        _ gatehouse: OAuthGatehouse, attacker: Browser, signInAgain: () async throws -> TestResponse
    ) async throws {
        let victimID = try #require(try await gatehouse.database.user(email: "victim@example.com")?.id)
        #expect(try await attacker.get("/account", follow: false).status == 303, "the attacker's session survived")
        #expect(try await gatehouse.database.externalAuths(userID: victimID).isEmpty, "the attacker's link survived")
        let again = try await signInAgain()
        #expect(again.status == 409, "the attacker's provider sign-in answered \(again.status) \(again.header("Location") ?? "")")
        #expect(try await gatehouse.auditTypes().contains("account.proven"))
    }

    @Test func anUnvouchedLinkEndsWhenTheOwnerResetsThePasswordOnThePages() async throws {
        let (gatehouse, mock) = try await liveMock("mallory-sub", ["email": "victim@example.com", "email_verified": false])
        defer { mock.stop() }
        let attacker = gatehouse.browser()
        let created = try await signInThroughMock(attacker, mock, subject: "mallory-sub")
        #expect(created.status == 303 && created.header("Location") == "/account", "sign-in answered \(created.status)")

        let victim = gatehouse.browser()
        _ = try await victim.get("/auth/forgot-password")
        #expect(try await victim.post("/auth/forgot-password", [("email", "victim@example.com")]).status == 303)
        let token = try await resetLinkToken(gatehouse, "victim@example.com")
        _ = try await victim.get("/auth/reset-password?token=" + token)
        let reset = try await victim.post("/auth/reset-password", [("token", token), ("password", "the owner's own passphrase")])
        #expect(reset.status == 303, "reset answered \(reset.status)")

        try await expectTheAttackerLockedOut(gatehouse, attacker: attacker) {
            try await signInThroughMock(gatehouse.browser(), mock, subject: "mallory-sub")
        }
        await gatehouse.stop()
    }

    @Test func anUnvouchedLinkEndsWhenTheOwnerResetsThePasswordThroughThePocketBaseAPI() async throws {
        let (gatehouse, attacker) = try await attackerSignedUpAtTheTestChooser(OAuthGatehouse())

        let client = HTTPTestClient(port: gatehouse.port)
        func pocketBase(_ action: String, _ json: [String: String]) async throws -> TestResponse {
            try await client.request(
                "POST", "/api/collections/users/" + action, headers: [("Content-Type", "application/json")],
                body: Array(try JSONSerialization.data(withJSONObject: json)))
        }
        #expect(try await pocketBase("request-password-reset", ["email": "victim@example.com"]).status == 204)
        let token = try await resetLinkToken(gatehouse, "victim@example.com")
        let confirmed = try await pocketBase(
            "confirm-password-reset",
            ["token": token, "password": "the owner's own passphrase", "passwordConfirm": "the owner's own passphrase"])
        #expect(confirmed.status == 204, "confirm-password-reset answered \(confirmed.status): \(confirmed.text)")

        try await expectTheAttackerLockedOut(gatehouse, attacker: attacker) {
            try await gatehouse.signInAtTestChooser(
                gatehouse.browser(), provider: "acme", subject: "mallory", email: "victim@example.com", verified: false)
        }
        await gatehouse.stop()
    }

    @Test func anUnvouchedLinkEndsWhenTheOwnerResetsThePasswordByCodeThroughTheInsForgeAPI() async throws {
        // Code mode: the reset mail carries the code InsForge's exchange takes.
        let (gatehouse, attacker) = try await attackerSignedUpAtTheTestChooser(OAuthGatehouse(verification: .code))

        let owner = AttackScript(port: gatehouse.port)
        let asked = try await owner.call("POST", "/api/auth/email/send-reset-password", ["email": "victim@example.com"])
        #expect(asked.status == 202, "send-reset-password answered \(asked.status): \(asked.text)")
        let mails = try await gatehouse.mailbox.mails(to: "victim@example.com", limit: 10)
        let code = try #require(
            mails.first(where: { $0.subject == "Reset your Gatehouse password" })?.code, "no reset code mailed")
        let exchanged = try await owner.call(
            "POST", "/api/auth/email/exchange-reset-password-token", ["email": "victim@example.com", "code": code])
        let token = try #require(exchanged.json["token"] as? String, "exchange answered \(exchanged.status): \(exchanged.text)")
        let reset = try await owner.call(
            "POST", "/api/auth/email/reset-password", ["otp": token, "newPassword": "the owner's own passphrase"])
        #expect(reset.status == 200, "reset-password answered \(reset.status): \(reset.text)")

        try await expectTheAttackerLockedOut(gatehouse, attacker: attacker) {
            try await gatehouse.signInAtTestChooser(
                gatehouse.browser(), provider: "acme", subject: "mallory", email: "victim@example.com", verified: false)
        }
        await gatehouse.stop()
    }

    @Test func aLiveLinkCannotBeClaimedAtTheChooserAfterASwitchToTestMode() async throws {
        let (gatehouse, mock) = try await liveMock("victim-sub", ["email": "victim@example.com", "email_verified": true])
        defer { mock.stop() }
        let victim = gatehouse.browser()
        #expect(try await signInThroughMock(victim, mock, subject: "victim-sub").header("Location") == "/account")

        try await gatehouse.admin("/_/api/providers/mock/mode", ["mode": "test"], expect: 204)
        let attacker = gatehouse.browser()
        let claimed = try await gatehouse.signInAtTestChooser(
            attacker, provider: "mock", subject: "victim-sub", email: "mallory@example.com")
        #expect(claimed.status == 409, "the chooser's sign-in answered \(claimed.status) \(claimed.header("Location") ?? "")")
        let account = try await attacker.get("/account", follow: false)
        #expect(account.status == 303 && !account.text.contains("victim@example.com"), "the attacker is signed in")

        // Back in live mode the owner's link still signs the owner in.
        try await gatehouse.admin("/_/api/providers/mock/mode", ["mode": "live"], expect: 204)
        #expect(try await signInThroughMock(gatehouse.browser(), mock, subject: "victim-sub").header("Location") == "/account")
        await gatehouse.stop()
    }
}
