import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 3 (link mode): an old verification link must not open a session. It dies when
/// the account is verified any other way — a password reset, a passwordless sign-in — and a
/// verification that signs in (InsForge's `POST /api/auth/email/verify`) still asks for the
/// account's second step.
@Suite(.stopsWhatItStarts) struct StaleVerificationAttackTests {
    static let password = "correct horse battery"

    /// Signs `email` up on the pages and returns the verification link's token.
    private func signedUp(_ gatehouse: TestGatehouse, _ email: String) async throws -> String {
        _ = try await gatehouse.signedUpBrowser(email, password: Self.password)
        return try await gatehouse.mailedLinkToken(to: email, subject: "Verify your Gatehouse email")
    }

    private func replay(_ gatehouse: TestGatehouse, _ token: String) async throws -> TestResponse {
        try await gatehouse.script.call(
            "POST", "/api/auth/email/verify?client_type=mobile", ["otp": token], bearer: "anon_key")
    }

    @Test func aVerificationLinkDiesWhenTheAccountIsVerifiedAnotherWay() async throws {
        let gatehouse = try await TestGatehouse(verification: .link)
        // A password reset proves the address too.
        let old = try await signedUp(gatehouse, "reset@example.com")
        _ = try await gatehouse.script.call(
            "POST", "/api/auth/email/send-reset-password", ["email": "reset@example.com"], bearer: "anon_key")
        let reset = try await gatehouse.mailedLinkToken(to: "reset@example.com", subject: "Reset your Gatehouse password")
        let done = try await gatehouse.script.call(
            "POST", "/api/auth/email/reset-password", ["otp": reset, "newPassword": "a brand new passphrase"],
            bearer: "anon_key")
        #expect(done.status == 200, "\(done.text)")
        let afterReset = try await replay(gatehouse, old)
        #expect(afterReset.status == 400 && afterReset.json["accessToken"] == nil, "\(afterReset.text)")

        // So does a passwordless sign-in (PocketBase's one-time code).
        let older = try await signedUp(gatehouse, "otp@example.com")
        let asked = try await gatehouse.script.call("POST", "/api/collections/users/request-otp", ["email": "otp@example.com"])
        let otpID = try #require(asked.json["otpId"] as? String)
        let signedIn = try await gatehouse.script.call(
            "POST", "/api/collections/users/auth-with-otp",
            ["otpId": otpID, "password": try await gatehouse.latestCode(for: "otp@example.com")])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        let afterOTP = try await replay(gatehouse, older)
        #expect(afterOTP.status == 400 && afterOTP.json["accessToken"] == nil, "\(afterOTP.text)")
        await gatehouse.stop()
    }

    @Test func verifyingByLinkThroughInsForgeAsksForTheSecondStep() async throws {
        let gatehouse = try await TestGatehouse(verification: .link)
        let email = "two@example.com"
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/verify-link?token=\(try await signedUp(gatehouse, email))")
        _ = try await browser.get("/auth/sign-in")
        let signIn = try await browser.post("/auth/sign-in", [("email", email), ("password", Self.password)])
        #expect(signIn.header("Location") == "/account")
        _ = try await TOTPPageTests.enrol(browser, clock: gatehouse.clock)

        // Staff mark the address unverified; a new link is mailed and used through InsForge's API.
        let userID = try #require(try await gatehouse.database.user(email: email)?.id.rawValue)
        let unverified = try await gatehouse.script.call(
            "PATCH", "/_/api/users/\(userID)", ["verified": false], bearer: try await gatehouse.adminToken())
        #expect(unverified.status == 200, "\(unverified.text)")
        gatehouse.clock.advance(61)  // past the address's one verification mail a minute (sign-up's counts)
        let resent = try await gatehouse.script.call(
            "POST", "/api/auth/email/send-verification", ["email": email], bearer: "anon_key")
        #expect(resent.status == 202, "\(resent.text)")
        let link = try await gatehouse.mailedLinkToken(to: email, subject: "Verify your Gatehouse email")
        let verified = try await replay(gatehouse, link)
        #expect(verified.status == 401 && verified.json["error"] as? String == "AUTH_MFA_REQUIRED", "\(verified.text)")
        #expect(verified.json["accessToken"] == nil)
        await gatehouse.stop()
    }
}
