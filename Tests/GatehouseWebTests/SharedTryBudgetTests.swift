import Foundation
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

@testable import Accounts
@testable import GatehouseWeb

/// An attacker who spreads guesses over the front-ends gets no more of them: the hosted pages and
/// the compatible APIs spend one per-address budget for the second sign-in step
/// (`SecondStepSignIn`) and one for sign-in codes (`EmailCodeSignIn`).
@Suite(.stopsWhatItStarts) struct SharedTryBudgetTests {
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
        let password = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-password",
            ["identity": TOTPPageTests.email, "password": TOTPPageTests.password])
        let mfaID = try #require(password.json["mfaId"] as? String, "\(password.text)")

        let attacker = gatehouse.browser()
        let csrf = try #require(Browser.csrfToken(in: try await attacker.get("/auth/sign-in").text))
        for _ in 0..<Budget.secondSteps(ip: "").rule.limit {
            let guess = try await pageTry(attacker, challenge: "made-up-\(UUID().uuidString)", csrf: csrf)
            #expect(guess.header("Location") == "/auth/sign-in?notice=mfa-expired", "an unknown sign-in starts over")
        }
        let throttled = try await pageTry(attacker, challenge: "made-up", csrf: csrf)
        #expect(
            throttled.status == 422 && throttled.text.contains("Enter the current code from your authenticator app."),
            "throttled reads as wrong")

        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let api = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-otp", ["otpId": mfaID, "password": right, "mfaId": mfaID])
        #expect(api.status == 429 && api.json["token"] == nil, "\(api.text)")
        await gatehouse.stop()
    }

    /// A verified account made through the InsForge API; returns a sign-in code mailed to it by
    /// `request` (InsForge's `send-otp` or PocketBase's `request-otp`) and that request's answer.
    private func codeMailed(
        _ gatehouse: TestGatehouse, to email: String, by request: String
    ) async throws -> (code: String, answer: TestResponse) {
        #expect(
            try await gatehouse.postJSON("/api/auth/users", ["email": email, "password": "correct horse battery"]).status == 200)
        let verify = try await gatehouse.latestCode(for: email)
        #expect(try await gatehouse.postJSON("/api/auth/email/verify", ["email": email, "otp": verify]).status == 200)
        let answer = try await gatehouse.postJSON(request, ["email": email])
        #expect((200..<300).contains(answer.status), "\(answer.text)")
        return (try await gatehouse.latestCode(for: email), answer)
    }

    @Test func codeChecksOnTheCodePageUseUpTheAPIsToo() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let insForge = try await codeMailed(gatehouse, to: "insforge@example.com", by: "/api/auth/email/send-otp")
        let pocketBase = try await codeMailed(
            gatehouse, to: "pocketbase@example.com", by: "/api/collections/users/request-otp")
        let otpID = try #require(pocketBase.answer.json["otpId"] as? String, "\(pocketBase.answer.text)")

        // The attacker's own address: the set-up's verification codes were checks from 127.0.0.1.
        let attacker = gatehouse.browser(from: "127.0.0.2")
        _ = try await attacker.get("/auth/sign-in")
        for _ in 0..<Budget.codeChecks(ip: "").rule.limit {
            let guess = try await attacker.post(
                "/auth/sign-in/code/verify", [("otp", "made-up"), ("code", "000000"), ("email", "insforge@example.com")])
            #expect(guess.status == 422)
        }
        let insForgeSignIn = ["method": "otp", "email": "insforge@example.com", "otp": insForge.code]
        let pocketBaseSignIn = ["otpId": otpID, "password": pocketBase.code]
        // A source out of checks is told so, in each API's 429 (it says nothing about any account).
        let insForgeRefused = try await gatehouse.postJSON(
            "/api/auth/sessions?client_type=mobile", insForgeSignIn, from: "127.0.0.2")
        #expect(insForgeRefused.status == 429 && insForgeRefused.json["error"] as? String == "TOO_MANY_REQUESTS")
        let pocketBaseRefused = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-otp", pocketBaseSignIn, from: "127.0.0.2")
        #expect(pocketBaseRefused.status == 429 && pocketBaseRefused.json["message"] as? String == "Too Many Requests.")

        // The refusals spent none of the codes' own tries: once the window has passed they sign in.
        gatehouse.clock.advance(Budget.codeChecks(ip: "").rule.window + 1)
        let insForgeLater = try await gatehouse.postJSON(
            "/api/auth/sessions?client_type=mobile", insForgeSignIn, from: "127.0.0.2")
        #expect(insForgeLater.status == 200 && insForgeLater.json["accessToken"] is String, "\(insForgeLater.text)")
        let pocketBaseLater = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-otp", pocketBaseSignIn, from: "127.0.0.2")
        #expect(pocketBaseLater.status == 200 && pocketBaseLater.json["token"] is String, "\(pocketBaseLater.text)")
        await gatehouse.stop()
    }
}
