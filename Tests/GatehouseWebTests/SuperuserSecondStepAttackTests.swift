import Foundation
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

/// Issue 22, item 1: a superuser with two-step sign-in on must not get a token for the password
/// alone through any way in — here the PocketBase API's `_superusers/auth-with-password`, whose
/// token's `sid` is a console session (admin API bearer, `gh_console` cookie).
@Suite(.stopsWhatItStarts) struct SuperuserSecondStepAttackTests {
    static let email = "root@example.com"
    static let password = "staff-password-1"

    @Test func thePocketBaseAPIAsksASuperuserWithTOTPForTheCode() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser(email: Self.email, password: Self.password)
        let secret = try TOTPPageTests.secret(in: try await staff.post("/_/security/totp/begin", []).text)
        let on = try await staff.post(
            "/_/security/totp/confirm", [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now))])
        #expect(on.status == 200 && on.text.contains("data-recovery-codes"))
        gatehouse.clock.advance(30)

        // The attacker knows the password only.
        let attempt = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password", ["identity": Self.email, "password": Self.password])
        #expect(attempt.status == 401, "\(attempt.text)")
        #expect(attempt.json["token"] == nil, "no token for the password alone")
        let mfaID = try #require(attempt.json["mfaId"] as? String, "PocketBase's MFA answer")
        // The pending step opens nothing: not the admin API, not the console.
        let asBearer = try await gatehouse.script.call("GET", "/_/api/users", bearer: mfaID)
        #expect(asBearer.status == 401)
        let asCookie = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/users", headers: [("Cookie", "gh_console=\(mfaID)")])
        #expect(asCookie.status == 303, "console pages send a stranger to sign in")

        // A wrong code does not finish it; the right one does, as PocketBase's SDK sends it.
        let code = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let wrong = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-otp",
            ["otpId": mfaID, "mfaId": mfaID, "password": code == "000000" ? "111111" : "000000"])
        #expect(wrong.status == 400 && wrong.json["token"] == nil, "\(wrong.text)")
        let done = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-otp", ["otpId": mfaID, "mfaId": mfaID, "password": code])
        #expect(done.status == 200, "\(done.text)")
        let token = try #require(done.json["token"] as? String)
        #expect(try await gatehouse.script.call("GET", "/api/collections/users/records", token: token).status == 200)
        // Its `sid`, which the app reads, opens neither the admin API nor the console (issue 42).
        let sid = try #require(try AttackScript.claims(of: token)["sid"] as? String)
        #expect(try await gatehouse.script.call("GET", "/_/api/users", bearer: sid).status == 401)
        await gatehouse.stop()
    }
}
