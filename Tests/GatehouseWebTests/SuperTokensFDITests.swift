import Foundation
import HTTPTestClient
import TestScope
import Testing

/// SuperTokens' frontend API (FDI) as a frontend SDK uses it, over HTTP against the real server:
/// email-password sign-up and sign-in, both token transports, refresh and sign-out, email
/// verification and its `st-ev` claim, password reset.
@Suite(.stopsWhatItStarts) struct SuperTokensFDITests {
    static let password = "Correct-horse-battery-9"

    /// Header mode (the mobile SDKs): sign-up answers the user and a session in `st-access-token`,
    /// `st-refresh-token` and `front-token` (exposed to browsers); the front-token carries the
    /// payload with `st-ev` false; a refresh rotates both tokens, and the old refresh token,
    /// presented again, is theft: 401, and the session is over.
    @Test func headerModeSignUpRefreshAndATheftEndingTheSession() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let signUp = try await app.call(
            "POST", "/auth/signup",
            ["formFields": [["id": "email", "value": "ada@example.com"], ["id": "password", "value": Self.password]]],
            rid: "emailpassword")
        #expect(signUp.status == 200 && signUp.json["status"] as? String == "OK", "\(signUp.json)")
        let user = try #require(signUp.json["user"] as? [String: Any])
        #expect(user["emails"] as? [String] == ["ada@example.com"])
        #expect(app.front["uid"] as? String == user["id"] as? String)
        #expect((app.front["ate"] as? Double ?? 0) > Date().timeIntervalSince1970 * 1000)
        #expect(app.emailVerifiedClaim == false)
        #expect(signUp.response.header("Access-Control-Expose-Headers") == "front-token,st-access-token,st-refresh-token")
        let firstRefresh = try #require(app.refreshToken)
        let firstAccess = try #require(app.accessToken)

        let refreshed = try await app.refresh()
        #expect(refreshed.status == 200 && refreshed.response.text == "{}", "\(refreshed.response.text)")
        #expect(app.accessToken != firstAccess && app.refreshToken != firstRefresh)
        #expect(try await app.call("GET", "/auth/user/email/verify").status == 200)

        app.refreshToken = firstRefresh
        let replay = try await app.refresh()
        #expect(replay.status == 401 && replay.json["message"] as? String == "token theft detected")
        #expect(replay.response.header("front-token") == "remove")
        let after = try await app.call("GET", "/auth/user/email/verify")
        #expect(after.status == 401 && after.json["message"] as? String == "unauthorised", "the session ended: \(after.json)")
    }

    /// Cookie mode (the web SDK): `sAccessToken` on `/`, `sRefreshToken` only on the refresh path;
    /// a refresh answers new cookies; sign-out clears both and says `front-token: remove`, and the
    /// refresh token no longer works.
    @Test func cookieModeSignInRefreshAndSignOut() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse, cookieMode: true)
        #expect(try await app.emailPassword("signup", "bo@example.com", Self.password).status == 200)
        let signIn = FDIScript(gatehouse, cookieMode: true)
        let answer = try await signIn.call(
            "POST", "/auth/signin",
            ["formFields": [["id": "email", "value": "bo@example.com"], ["id": "password", "value": Self.password]]],
            rid: "emailpassword")
        #expect(answer.json["status"] as? String == "OK")
        let cookieLines = answer.response.headerValues("Set-Cookie")
        #expect(cookieLines.contains { $0.hasPrefix("sAccessToken=") && $0.contains("Path=/;") && $0.contains("HttpOnly") })
        #expect(cookieLines.contains { $0.hasPrefix("sRefreshToken=") && $0.contains("Path=/auth/session/refresh") })
        #expect(answer.response.header("st-access-token") == nil)
        #expect(signIn.emailVerifiedClaim == true)

        let refreshed = try await signIn.refresh()
        #expect(refreshed.status == 200 && refreshed.response.setCookies["sAccessToken"] != nil)
        let kept = try #require(signIn.refreshToken)
        let signOut = try await signIn.call("POST", "/auth/signout")
        #expect(signOut.status == 200 && signOut.json["status"] as? String == "OK")
        #expect(signOut.response.header("front-token") == "remove")
        #expect(signOut.response.headerValues("Set-Cookie").allSatisfy { $0.contains("Max-Age=0") })
        signIn.refreshToken = kept
        #expect(try await signIn.refresh().status == 401, "a signed-out session does not refresh")
    }

    /// A cross-site form can post the victim's cookies but set no header: in cookie mode, a
    /// state-changing call without the SDK's `rid` header is refused (anti-CSRF `VIA_CUSTOM_HEADER`)
    /// and the session stays; an unknown `rid` value (supertokens-ios sends `rid: anti-csrf`) is fine.
    @Test func aCookieSignOutWithoutRidIsRefusedAndAnyRidIsTolerated() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse, cookieMode: true)
        #expect(try await app.emailPassword("signup", "cy@example.com", Self.password).status == 200)
        let forged = try await app.call("POST", "/auth/signout", rid: nil)
        #expect(forged.status == 401 && forged.response.header("front-token") == nil, "\(forged.json)")
        #expect(try await app.call("GET", "/auth/user/email/verify").status == 200, "the session is still on")
        let iosStyle = try await app.call("POST", "/auth/signout", rid: "anti-csrf")
        #expect(iosStyle.status == 200 && iosStyle.json["status"] as? String == "OK")
    }

    /// An access token past its life answers 401 `try refresh token` (the SDK refreshes and
    /// retries); after the refresh the same call succeeds.
    @Test func anExpiredAccessTokenAsksForARefresh() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "di@example.com", Self.password).status == 200)
        gatehouse.clock.advance(3601)
        let expired = try await app.call("GET", "/auth/user/email/verify")
        #expect(expired.status == 401 && expired.json["message"] as? String == "try refresh token")
        #expect(expired.response.header("front-token") == nil, "the tokens are kept for the refresh")
        #expect(try await app.refresh().status == 200)
        #expect(try await app.call("GET", "/auth/user/email/verify").status == 200)
    }

    /// The outcomes the sign-in form shows: wrong password, a taken address, a weak password, a
    /// malformed address; `email/exists` answers both ways; a missing form field is a 400.
    @Test func signInAndSignUpRefusalsAreTheSDKsStatuses() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "ed@example.com", Self.password).status == 200)
        let wrong = try await app.emailPassword("signin", "ed@example.com", "not-the-password-1")
        #expect(wrong.status == 200 && wrong.json["status"] as? String == "WRONG_CREDENTIALS_ERROR")
        let taken = try await app.emailPassword("signup", "ED@example.com", Self.password)
        #expect(taken.json["status"] as? String == "FIELD_ERROR")
        #expect((taken.json["formFields"] as? [[String: Any]])?.first?["id"] as? String == "email")
        let weak = try await app.emailPassword("signup", "fa@example.com", "password")
        #expect((weak.json["formFields"] as? [[String: Any]])?.first?["id"] as? String == "password", "\(weak.json)")
        let exists = try await app.call("GET", "/auth/emailpassword/email/exists?email=ed%40example.com", rid: "emailpassword")
        #expect(exists.json["exists"] as? Bool == true && exists.json["status"] as? String == "OK")
        let absent = try await app.call("GET", "/auth/emailpassword/email/exists?email=nobody%40example.com")
        #expect(absent.json["exists"] as? Bool == false)
        let missing = try await app.call("POST", "/auth/signin", ["formFields": [["id": "email", "value": "ed@example.com"]]])
        #expect(missing.status == 400 && missing.json["message"] != nil)
    }
}
