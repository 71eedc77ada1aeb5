import Foundation
import HTTPTestClient
import Secrets
import TestScope
import Testing

/// Issue 42, item 2: on a proven account, the owner's reset and staff's "revoke all sessions" offer
/// to remove every passkey too — a taker's passkey must not outlive the owner's recovery.
@Suite(.stopsWhatItStarts) struct PasskeyRecoveryTests {
    static let email = "owner@example.com"
    static let password = "the owner's own passphrase"

    /// A proven account with a password and a passkey: signed up on the pages, verified by its code
    /// (which signs in), a passkey added in that recent sign-in.
    private func provenAccountWithPasskey(_ trust: AccountTrustScript) async throws {
        let browser = trust.gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", Self.email), ("password", Self.password)])
        let code = try await trust.newestMail(to: Self.email, with: "code")
        let verified = try await browser.post("/auth/verify", [("email", Self.email), ("code", code)])
        #expect(verified.status == 303, "verify answered \(verified.status)")
        _ = try await browser.get("/account/security", headers: trust.localhost)
        let options = try await browser.post("/account/security/passkeys/options", [], headers: trust.localhost)
        let publicKey = try #require(options.json["publicKey"] as? [String: Any], "\(options.text)")
        let challenge = try #require((publicKey["challenge"] as? String).flatMap(Base64URL.decode))
        let added = try await browser.post(
            "/account/security/passkeys",
            [("credential", try trust.authenticator().registrationJSON(challenge: challenge)), ("name", "Laptop")],
            headers: trust.localhost)
        #expect(added.status == 200, "adding the passkey answered \(added.status) \(added.text)")
    }

    /// The owner's reset on the pages, ticking "remove every passkey" when `removing`.
    private func reset(_ trust: AccountTrustScript, removing: Bool) async throws {
        trust.gatehouse.clock.advance(61)
        let browser = trust.gatehouse.browser()
        _ = try await browser.get("/auth/forgot-password")
        _ = try await browser.post("/auth/forgot-password", [("email", Self.email)])
        let token = try AttackScript.linkToken(in: try await trust.newestMail(to: Self.email, with: "link"))
        let form = try await browser.get("/auth/reset-password?token=" + token)
        #expect(form.text.contains("remove_passkeys"), "the reset page offers no passkey removal")
        let fields = [("token", token), ("password", Self.password + " anew")] + (removing ? [("remove_passkeys", "on")] : [])
        let done = try await browser.post("/auth/reset-password", fields)
        #expect(done.status == 303, "reset answered \(done.status)")
    }

    @Test func theResetPageRemovesEveryPasskeyWhenAsked() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        try await provenAccountWithPasskey(trust)
        let passkey = trust.passkey(Self.email)
        try await reset(trust, removing: false)
        #expect(try await passkey.alive(), "a reset nobody asked to remove passkeys removed them")
        try await reset(trust, removing: true)
        #expect(try await !passkey.alive(), "the passkey outlived the reset that asked to remove it")
        await gatehouse.stop()
    }

    @Test func staffSigningTheAccountOutEverywhereRemovesEveryPasskeyWhenAsked() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        try await provenAccountWithPasskey(trust)
        let userID = try #require(try await gatehouse.database.user(email: Self.email)?.id.rawValue)
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(userID)")
        #expect(page.text.contains("remove_passkeys"), "the console offers no passkey removal")
        let revoked = try await staff.post("/_/users/\(userID)/sessions/revoke-all", [("remove_passkeys", "on")])
        #expect(revoked.status == 303, "revoke-all answered \(revoked.status)")
        #expect(try await !trust.passkey(Self.email).alive(), "the passkey outlived staff's recovery")
        await gatehouse.stop()
    }
}
