import Foundation
import HTTPTestClient
import LocalAuth
import TestScope
import Testing
import TwoFactor

/// The second step of a PocketBase-API sign-in for an account with its authenticator app on:
/// `auth-with-password` answers 401 `{mfaId}`, and `auth-with-otp` with that `mfaId` (sent as
/// `otpId` too) and the authenticator or a recovery code completes it (PocketBaseMFA). The
/// refusals answer in PocketBase's words; a mailed code never stands in for the app.
@Suite(.stopsWhatItStarts) struct PocketBaseMFATests {
    private func post(_ gatehouse: TestGatehouse, _ path: String, _ json: [String: Any]) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/users/" + path, headers: [("Content-Type", "application/json")],
            body: Array(try JSONSerialization.data(withJSONObject: json)))
    }

    /// The right password: PocketBase's 401 with the pending `mfaId`.
    private func mfaID(_ gatehouse: TestGatehouse) async throws -> String {
        let first = try await post(
            gatehouse, "auth-with-password", ["identity": TOTPPageTests.email, "password": TOTPPageTests.password])
        #expect(first.status == 401 && first.json["token"] == nil)
        return try #require(first.json["mfaId"] as? String, "\(first.text)")
    }

    private func second(_ gatehouse: TestGatehouse, _ mfaID: String, _ code: String) async throws -> TestResponse {
        try await post(gatehouse, "auth-with-otp", ["otpId": mfaID, "password": code, "mfaId": mfaID])
    }

    private func expectMessage(
        _ response: TestResponse, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 400, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["message"] as? String == message, sourceLocation: sourceLocation)
        #expect(response.json["token"] == nil, sourceLocation: sourceLocation)
    }

    @Test func theRightCodeCompletesOnceAndAWrongOrReusedOneIsRefused() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse)
        let methods = try await HTTPTestClient(port: gatehouse.port).request("GET", "/api/collections/users/auth-methods")
        let mfa = try #require(methods.json["mfa"] as? [String: Any])
        #expect(mfa["enabled"] as? Bool == true)
        #expect(mfa["duration"] as? Int == Int(TOTPRules.stepLifetime), "the challenge really lives that long")

        let pending = try await mfaID(gatehouse)
        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        expectMessage(try await second(gatehouse, pending, right == "000000" ? "111111" : "000000"), "Invalid or expired OTP.")
        let done = try await second(gatehouse, pending, right)
        #expect(done.status == 200, "\(done.text)")
        let token = try #require(done.json["token"] as? String)
        #expect((done.json["record"] as? [String: Any])?["email"] as? String == TOTPPageTests.email)
        let refreshed = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/users/auth-refresh", headers: [("Authorization", token)])
        #expect(refreshed.status == 200, "the token is a real session")
        expectMessage(try await second(gatehouse, pending, right), "Invalid or expired MFA session.")

        // The same code on a new sign-in, inside its 30-second step: spent.
        expectMessage(try await second(gatehouse, try await mfaID(gatehouse), right), "Invalid or expired OTP.")
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("mfa.completed") && types.contains("mfa.failed"))
        await gatehouse.stop()
    }

    @Test func aRecoveryCodeCompletesOnce() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, _, codes) = try await TOTPPageTests.enrolled(gatehouse)
        let recovery = try #require(codes.first)
        #expect(try await second(gatehouse, try await mfaID(gatehouse), recovery).status == 200)
        expectMessage(try await second(gatehouse, try await mfaID(gatehouse), recovery), "Invalid or expired OTP.")
        await gatehouse.stop()
    }

    @Test func theSixthTryAndAnExpiredMFAIDAreRefusedEvenWithTheRightCode() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse)
        let pending = try await mfaID(gatehouse)
        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        for _ in 0..<5 {
            expectMessage(
                try await second(gatehouse, pending, right == "000000" ? "111111" : "000000"), "Invalid or expired OTP.")
        }
        expectMessage(try await second(gatehouse, pending, right), "Invalid or expired MFA session.")

        let late = try await mfaID(gatehouse)
        gatehouse.clock.advance(TOTPRules.stepLifetime + 60)
        expectMessage(
            try await second(gatehouse, late, try TOTP.code(secret: secret, at: gatehouse.clock.now)),
            "Invalid or expired MFA session.")
        expectMessage(try await second(gatehouse, "not-an-mfa-id", right), "Invalid or expired MFA session.")
        await gatehouse.stop()
    }

    @Test func aMailedCodeNeverStandsInForTheAuthenticatorApp() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await TOTPPageTests.enrolled(gatehouse)
        let pending = try await mfaID(gatehouse)
        // The attacker knows the password and reads the mailbox: request-otp, then the mailed code with the mfaId.
        let requested = try await post(gatehouse, "request-otp", ["email": TOTPPageTests.email])
        let otpID = try #require(requested.json["otpId"] as? String, "\(requested.text)")
        let code = try await gatehouse.latestCode(for: TOTPPageTests.email)
        let refused = try await post(gatehouse, "auth-with-otp", ["otpId": otpID, "password": code, "mfaId": pending])
        #expect(refused.status == 400 && refused.json["token"] == nil)
        #expect((refused.json["message"] as? String)?.contains("authenticator app") == true)
        // And the mailed code alone is only a first step: it asks for the app again.
        let alone = try await post(gatehouse, "auth-with-otp", ["otpId": otpID, "password": code])
        #expect(alone.status == 401 && alone.json["mfaId"] is String && alone.json["token"] == nil, "\(alone.text)")
        await gatehouse.stop()
    }
}
