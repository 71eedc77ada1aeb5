import Foundation
import HTTPTestClient
import TestScope
import Testing

/// InsForge's sign-in with a mailed code: `POST /api/auth/email/send-otp` then `POST
/// /api/auth/sessions` with `{method: "otp", email, otp}`, as an app on InsForge's SDKs sends them.
@Suite(.stopsWhatItStarts) struct InsForgeOTPTests {
    static let password = "correct horse battery"

    private func post(_ gatehouse: TestGatehouse, _ path: String, _ json: [String: Any]) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer anon_app_key")],
            body: Array(try JSONSerialization.data(withJSONObject: json)))
    }

    private func otp(_ gatehouse: TestGatehouse, _ email: String, _ code: String) async throws -> TestResponse {
        try await post(gatehouse, "/api/auth/sessions?client_type=mobile", ["method": "otp", "email": email, "otp": code])
    }

    /// A verified account made through the API.
    private func account(_ gatehouse: TestGatehouse, _ email: String) async throws {
        #expect(try await post(gatehouse, "/api/auth/users", ["email": email, "password": Self.password]).status == 200)
        let code = try await gatehouse.latestCode(for: email)
        #expect(try await post(gatehouse, "/api/auth/email/verify", ["email": email, "otp": code]).status == 200)
    }

    private static func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

    @Test func aMailedCodeSignsInOnceAndUnknownAddressesAnswerAlike() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        try await account(gatehouse, "ada@example.com")

        let known = try await post(gatehouse, "/api/auth/email/send-otp", ["email": "ada@example.com"])
        let unknown = try await post(gatehouse, "/api/auth/email/send-otp", ["email": "nobody@example.com"])
        #expect(known.status == 202 && unknown.status == 202, "\(known.text) \(unknown.text)")
        #expect(known.text == unknown.text, "the answer reveals no account")
        #expect(known.json["success"] as? Bool == true)
        #expect(try await gatehouse.mails(to: "nobody@example.com").isEmpty, "no mail to an address without an account")
        let code = try await gatehouse.latestCode(for: "ada@example.com")

        // A wrong code for an account and any code for an address without one read the same.
        let wrongKnown = try await otp(gatehouse, "ada@example.com", Self.wrong(code))
        let wrongUnknown = try await otp(gatehouse, "nobody@example.com", code)
        let neverAsked = try await otp(gatehouse, "never-asked@example.com", code)
        for response in [wrongKnown, wrongUnknown, neverAsked] {
            #expect(response.status == 400 && response.json["error"] as? String == "AUTH_INVALID_OTP", "\(response.text)")
            #expect(response.text == wrongKnown.text)
        }

        let signedIn = try await otp(gatehouse, "ADA@example.com", code)
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect((signedIn.json["user"] as? [String: Any])?["email"] as? String == "ada@example.com")
        #expect(signedIn.json["refreshToken"] is String, "mobile clients get the refresh token in the body")
        let access = try #require(signedIn.json["accessToken"] as? String)
        let current = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/api/auth/sessions/current", headers: [("Authorization", "Bearer \(access)")])
        #expect(current.status == 200)

        let replay = try await otp(gatehouse, "ada@example.com", code)
        #expect(replay.status == 400 && replay.json["statusCode"] as? Int == 400, "a code works once: \(replay.text)")
        await gatehouse.stop()
    }

    /// Guessing: a code takes five tries, then even the right one is refused until a new one is sent.
    @Test func fiveWrongGuessesSpendTheCode() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        try await account(gatehouse, "ada@example.com")
        #expect(try await post(gatehouse, "/api/auth/email/send-otp", ["email": "ada@example.com"]).status == 202)
        let code = try await gatehouse.latestCode(for: "ada@example.com")
        for guess in ["000001", "000002", "000003", "000004", "000005"] where guess != code {
            #expect(try await otp(gatehouse, "ada@example.com", guess).status == 400)
        }
        let late = try await otp(gatehouse, "ada@example.com", code)
        #expect(late.status == 400 && late.json["accessToken"] == nil, "\(late.text)")
        await gatehouse.stop()
    }

    @Test func sendsKeepThePagesCoolDownForEveryAddress() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        try await account(gatehouse, "ada@example.com")
        for email in ["ada@example.com", "nobody@example.com"] {
            #expect(try await post(gatehouse, "/api/auth/email/send-otp", ["email": email]).status == 202)
            let again = try await post(gatehouse, "/api/auth/email/send-otp", ["email": email])
            #expect(again.status == 429 && again.json["error"] as? String == "TOO_MANY_REQUESTS", "\(again.text)")
        }
        gatehouse.clock.advance(61)
        #expect(try await post(gatehouse, "/api/auth/email/send-otp", ["email": "ada@example.com"]).status == 202)
        await gatehouse.stop()
    }

    @Test func passwordlessSignUpCreatesTheAccountOnTheFirstRightCode() async throws {
        let gatehouse = try await TestGatehouse(verification: .code, passwordlessSignUp: true)
        #expect(try await post(gatehouse, "/api/auth/email/send-otp", ["email": "new@example.com"]).status == 202)
        let code = try await gatehouse.latestCode(for: "new@example.com")
        let signedIn = try await post(
            gatehouse, "/api/auth/sessions", ["method": "otp", "email": "new@example.com", "otp": code, "name": "Nova"])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        let user = try #require(signedIn.json["user"] as? [String: Any])
        #expect(user["emailVerified"] as? Bool == true)
        #expect((user["profile"] as? [String: Any])?["name"] as? String == "Nova", "InsForge names the new account")
        await gatehouse.stop()
    }

    @Test func turnedOffOnTheSignInPageIsTurnedOffHere() async throws {
        let gatehouse = try await TestGatehouse(verification: .code, signInMethods: [.password])
        let send = try await post(gatehouse, "/api/auth/email/send-otp", ["email": "ada@example.com"])
        #expect(send.status == 403 && send.json["error"] as? String == "FORBIDDEN", "\(send.text)")
        let signIn = try await otp(gatehouse, "ada@example.com", "123456")
        #expect(signIn.status == 403, "\(signIn.text)")
        #expect(try await gatehouse.mails(to: "ada@example.com").isEmpty)
        await gatehouse.stop()
    }

    @Test func passwordIsStillTheDefaultMethod() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        try await account(gatehouse, "ada@example.com")
        for method: Any in [NSNull(), "password"] {
            let response = try await post(
                gatehouse, "/api/auth/sessions", ["method": method, "email": "ada@example.com", "password": Self.password])
            #expect(response.status == 200, "\(response.text)")
        }
        let implicit = try await post(gatehouse, "/api/auth/sessions", ["email": "ada@example.com", "password": Self.password])
        #expect(implicit.status == 200)
        let unknown = try await post(gatehouse, "/api/auth/sessions", ["method": "magic", "email": "ada@example.com"])
        #expect(unknown.status == 400 && unknown.json["error"] as? String == "INVALID_INPUT")
        await gatehouse.stop()
    }
}
