import AuthCore
import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Issue 43: the InsForge Swift SDK's day-one calls in the SDK's own order, over raw HTTP with the
/// server's default flags — `signUp` → `sendEmailVerification` → `verifyEmail` back to back (InsForge's
/// per-email cool-down starts with the first `send-verification`, not with the sign-up's own mail),
/// and `signInWithOAuthView(providerKey:)` → `GET /api/auth/oauth/custom/{key}` → the provider →
/// `handleAuthCallback`'s exchange.
@Suite(.stopsWhatItStarts) struct InsForgeAppFlowTests {
    static let password = "correct horse battery"
    static let verifier = "sdk-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"

    private func insForge(_ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any]) async throws -> TestResponse {
        try await gatehouse.postJSON(path, body)
    }

    @Test(arguments: [VerificationMode.code, .link])
    func signUpThenSendVerificationThenVerifyBackToBack(_ mode: VerificationMode) async throws {
        let gatehouse = try await TestGatehouse(verification: mode)
        let email = "sdk-\(mode.rawValue)@example.com"
        let signUp = try await insForge(
            gatehouse, "/api/auth/users?client_type=mobile", ["email": email, "password": Self.password, "name": "Ada"])
        #expect(signUp.status == 200 && signUp.json["requireEmailVerification"] as? Bool == true, "\(signUp.text)")
        #expect(try await gatehouse.mails(to: email).count == 1, "InsForge's sign-up mails at once")

        let sent = try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": email])
        #expect(sent.status == 202, "the sign-up's mail starts no cool-down: \(sent.text)")
        #expect(try await gatehouse.mails(to: email).count == 2)
        let again = try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": email])
        #expect(again.status == 429 && again.json["error"] as? String == "TOO_MANY_REQUESTS", "\(again.text)")
        #expect(try await gatehouse.mails(to: email).count == 2, "the cool-down started with send-verification")

        let proof =
            mode == .code
            ? try await gatehouse.latestCode(for: email)
            : try await gatehouse.mailedLinkToken(to: email, subject: "Verify your Gatehouse email")
        let verified = try await insForge(
            gatehouse, "/api/auth/email/verify?client_type=mobile", ["email": email, "otp": proof])
        #expect(verified.status == 200 && verified.json["accessToken"] is String, "\(verified.text)")
        #expect((verified.json["user"] as? [String: Any])?["emailVerified"] as? Bool == true)
        await gatehouse.stop()
    }

    /// A taken address signs up like a free one, so the next `send-verification` must read alike too.
    @Test func sendVerificationAfterATakenAddressReadsLikeAfterAFreeOne() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let body = ["email": "owner@example.com", "password": Self.password]
        #expect(try await insForge(gatehouse, "/api/auth/users", body).status == 200)
        #expect(try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": "owner@example.com"]).status == 202)
        gatehouse.clock.advance(61)
        #expect(try await insForge(gatehouse, "/api/auth/users", body).status == 200, "taken, answered as free")
        #expect(
            try await insForge(gatehouse, "/api/auth/users", ["email": "free@example.com", "password": Self.password]).status
                == 200)
        let taken = try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": "owner@example.com"])
        let free = try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": "free@example.com"])
        #expect(taken.status == 202 && free.status == 202 && taken.text == free.text, "\(taken.text) \(free.text)")
        await gatehouse.stop()
    }

    @Test func aCustomProviderKeySignsInThroughTheSameCallbackAndExchange() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme-sso", "type": "oidc", "mode": "test", "clientId": "t"])
        try await gatehouse.admin("/_/api/apps", ["id": "notes", "name": "Notes", "callbackURLs": ["notesapp://auth/callback"]])
        let client = HTTPTestClient(port: gatehouse.port)
        let query = FormEncoding.encode([
            ("redirect_uri", "notesapp://auth/callback"), ("code_challenge", try PKCE.challenge(for: Self.verifier))
        ])
        let anon = [("Authorization", "Bearer anon_key")]
        let answer = try await client.request("GET", "/api/auth/oauth/custom/acme-sso?" + query, headers: anon)
        #expect(answer.status == 200, "\(answer.text)")
        let authURL = try #require(answer.json["authUrl"] as? String)
        #expect(authURL.hasPrefix(gatehouse.base + "/auth/oauth/acme-sso?"))

        // The browser: the provider start, the test provider's chooser, the callback back to the app.
        let browser = gatehouse.browser()
        let chooserPath = try #require(try await browser.get(pathAndQuery(authURL), follow: false).header("Location"))
        #expect(chooserPath.hasPrefix("/_/test-idp/acme-sso/authorize?"))
        #expect(try await browser.get(chooserPath).status == 200)
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"] {
            fields.append((name, try #require(queryItem(name, in: "http://x" + chooserPath))))
        }
        let chosen = try await browser.post("/_/test-idp/acme-sso/authorize", fields + [("action", "fixed-0")])
        let link = try #require(chosen.text.range(of: #"data-continue-url="[^"]+""#, options: .regularExpression))
        let callback = String(chosen.text[link].dropFirst(19).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
        let back = try #require(try await browser.get(pathAndQuery(callback), follow: false).header("Location"))
        #expect(back.hasPrefix("notesapp://auth/callback?insforge_code="))

        let exchanged = try await client.request(
            "POST", "/api/auth/oauth/exchange?client_type=mobile", headers: anon + [("Content-Type", "application/json")],
            body: Array(
                try JSONSerialization.data(withJSONObject: [
                    "code": try #require(queryItem("insforge_code", in: back)), "code_verifier": Self.verifier
                ])))
        #expect(exchanged.status == 200 && exchanged.json["accessToken"] is String, "\(exchanged.text)")
        #expect((exchanged.json["user"] as? [String: Any])?["providers"] as? [String] == ["acme-sso"])

        // No such provider, and a key outside InsForge's rule: InsForge's envelope, never a 5xx.
        let unknown = try await client.request("GET", "/api/auth/oauth/custom/nobody?" + query, headers: anon)
        #expect(unknown.status == 404 && unknown.json["error"] as? String == "NOT_FOUND", "\(unknown.text)")
        let invalid = try await client.request("GET", "/api/auth/oauth/custom/Acme%20SSO?" + query, headers: anon)
        #expect(invalid.status == 400 && invalid.json["error"] as? String == "INVALID_INPUT", "\(invalid.text)")
        #expect(invalid.json["statusCode"] as? Int == 400 && invalid.json["message"] is String)
        await gatehouse.stop()
    }
}
