import Foundation
import HTTPTestClient
import Testing
import TwoFactor

@testable import GatehouseWeb

/// An attacker who spreads guesses over the front-ends gets no more of them: the hosted pages and
/// the compatible APIs spend one per-address budget for the second sign-in step
/// (`SecondStepSignIn`) and one for sign-in codes (`EmailCodeSignIn`).
@Suite struct SharedTryBudgetTests {
    private func json(_ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any]) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer anon_app_key")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// One second step on the page for a pending sign-in named by the attacker (`gh_mfa`).
    private func pageTry(_ browser: Browser, challenge: String, csrf: String) async throws -> TestResponse {
        let cookies = [browser.jar.cookieHeader, "gh_mfa=\(challenge)"].compactMap { $0 }.joined(separator: "; ")
        return try await browser.client.request(
            "POST", "/auth/mfa",
            headers: [("Cookie", cookies), ("Content-Type", "application/x-www-form-urlencoded")],
            body: FormBody.encode([("code", "000000"), ("redirect", "/account"), ("_csrf", csrf)]))
    }

    @Test func secondStepTriesOnThePageUseUpThePocketBaseAPIsToo() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse)
        let password = try await json(
            gatehouse, "/api/collections/users/auth-with-password",
            ["identity": TOTPPageTests.email, "password": TOTPPageTests.password])
        let mfaID = try #require(password.json["mfaId"] as? String, "\(password.text)")

        let attacker = gatehouse.browser()
        let csrf = try #require(Browser.csrfToken(in: try await attacker.get("/auth/sign-in").text))
        for _ in 0..<Throttle.secondStepPerIP.limit {
            let guess = try await pageTry(attacker, challenge: "made-up-\(UUID().uuidString)", csrf: csrf)
            #expect(guess.header("Location") == "/auth/sign-in?notice=mfa-expired", "an unknown sign-in starts over")
        }
        let throttled = try await pageTry(attacker, challenge: "made-up", csrf: csrf)
        #expect(
            throttled.status == 422 && throttled.text.contains("Enter the current code from your authenticator app."),
            "throttled reads as wrong")

        let right = TOTP.code(secret: secret, at: gatehouse.clock.now)
        let api = try await json(
            gatehouse, "/api/collections/users/auth-with-otp", ["otpId": mfaID, "password": right, "mfaId": mfaID])
        #expect(api.status == 429 && api.json["token"] == nil, "\(api.text)")
        await gatehouse.stop()
    }

    @Test func codeChecksOnTheCodePageUseUpInsForgesToo() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "budget@example.com"
        #expect(try await json(gatehouse, "/api/auth/users", ["email": email, "password": "correct horse battery"]).status == 200)
        let verify = try await gatehouse.latestCode(for: email)
        #expect(try await json(gatehouse, "/api/auth/email/verify", ["email": email, "otp": verify]).status == 200)
        #expect(try await json(gatehouse, "/api/auth/email/send-otp", ["email": email]).status == 202)
        let code = try await gatehouse.latestCode(for: email)

        let attacker = gatehouse.browser()
        _ = try await attacker.get("/auth/sign-in")
        for _ in 0..<Throttle.codeChecksPerIP.limit {
            let guess = try await attacker.post(
                "/auth/sign-in/code/verify", [("otp", "made-up"), ("code", "000000"), ("email", email)])
            #expect(guess.status == 422)
        }
        let signIn = ["method": "otp", "email": email, "otp": code]
        let throttled = try await json(gatehouse, "/api/auth/sessions?client_type=mobile", signIn)
        #expect(throttled.status == 400 && throttled.json["error"] as? String == "AUTH_INVALID_OTP", "\(throttled.text)")

        // The refusal spent none of the code's own tries: once the window has passed it signs in.
        gatehouse.clock.advance(Throttle.codeChecksPerIP.window + 1)
        let later = try await json(gatehouse, "/api/auth/sessions?client_type=mobile", signIn)
        #expect(later.status == 200 && later.json["accessToken"] is String, "\(later.text)")
        await gatehouse.stop()
    }
}
