import Foundation
import HTTPTestClient
import Secrets
import TestScope
import Testing
import WebAuthnTestSupport

/// A clock per account reaches the ceremonies that wait on an account (issue 47, README "Test
/// controls"): a passkey sign-in started for an address and a provider link started by a
/// signed-in person end in that account's time, as its codes do; another account's, started
/// alike, still completes.
@Suite(.stopsWhatItStarts) struct AccountClockCeremonyTests {
    /// Ada and Bob each ask for a passkey sign-in by address; seven minutes on for Ada (past the
    /// challenge's six), her authenticator's answer is refused as expired and Bob's signs him in.
    @Test func aPasskeySignInStartedForAnAddressEndsInItsAccountsTime() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .none)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        var answers: [String: (browser: Browser, credential: String)] = [:]
        for (index, email) in ["ada@example.com", "bob@example.com"].enumerated() {
            var authenticator = try trust.authenticator()
            authenticator.credentialID = [UInt8](repeating: UInt8(index + 1), count: 16)
            let signedUp = try await trust.signUpWithPasskeyOnThePages(email, authenticator)
            #expect(signedUp.status == 200, "\(email): \(signedUp.status) \(signedUp.text.prefix(400))")
            let user = try #require(try await gatehouse.database.user(email: email)?.id.rawValue)
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/sign-in", headers: trust.localhost)
            let options = try await browser.post("/auth/passkey/options", [("email", email)], headers: trust.localhost)
            let encoded = (options.json["publicKey"] as? [String: Any])?["challenge"] as? String
            let challenge = try #require(encoded.flatMap(Base64URL.decode), "\(options.status) \(options.text)")
            let credential = try authenticator.assertionJSON(
                challenge: challenge, userHandle: Base64URL.encode(Array(user.utf8)), signCount: 2)
            answers[email] = (browser, credential)
        }
        try await gatehouse.admin("/_/api/test/clock", ["email": "ada@example.com", "seconds": 7 * 60], expect: 200)

        for (email, signsIn) in [("ada@example.com", false), ("bob@example.com", true)] {
            let (browser, credential) = try #require(answers[email])
            let answer = try await browser.post("/auth/passkey/sign-in", [("credential", credential)], headers: trust.localhost)
            if signsIn {
                #expect(answer.status == 200, "\(email): \(answer.status) \(answer.text)")
            } else {
                #expect(answer.status != 200 && answer.text.contains("has expired"), "\(email): \(answer.status) \(answer.text)")
            }
            #expect(try await browser.get("/account", follow: false).status == (signsIn ? 200 : 303), "\(email)")
        }
        await gatehouse.stop()
    }

    /// Ada and Bob each start linking a provider and come back from it; eleven minutes on for Ada
    /// (past the round trip's ten), her callback says it took too long and nothing is linked,
    /// while Bob's links.
    @Test func aProviderLinkEndsInItsAccountsTime() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        var callbacks: [String: (browser: Browser, path: String)] = [:]
        for email in ["ada@example.com", "bob@example.com"] {
            let browser = gatehouse.browser()
            try await gatehouse.signUp(browser, email: email)
            let path = try await gatehouse.chooseAtTestChooser(
                browser, provider: "acme", subject: "sub-" + email, email: email, link: true)
            callbacks[email] = (browser, path)
        }
        try await gatehouse.admin("/_/api/test/clock", ["email": "ada@example.com", "seconds": 11 * 60], expect: 200)

        let (adaBrowser, adaPath) = try #require(callbacks["ada@example.com"])
        let late = try await adaBrowser.get(adaPath, follow: false)
        #expect(late.status == 400 && late.text.contains("took too long"), "\(late.status)")
        let ada = try #require(try await gatehouse.database.user(email: "ada@example.com")?.id)
        #expect(try await gatehouse.database.externalAuths(userID: ada).isEmpty)
        let (bobBrowser, bobPath) = try #require(callbacks["bob@example.com"])
        let linked = try await bobBrowser.get(bobPath, follow: false)
        #expect(linked.header("Location") == "/account/linked?notice=linked", "\(linked.status)")
        await gatehouse.stop()
    }
}
