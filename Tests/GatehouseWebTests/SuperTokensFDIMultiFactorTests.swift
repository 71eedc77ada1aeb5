import Foundation
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

/// SuperTokens' MFA flow through the FDI: a first factor for an account with an authenticator
/// answers with a token whose `st-mfa` claim is unmet and which opens nothing but the MFA routes;
/// `totp/verify` completes the account's second step and opens the session. The device routes set
/// the authenticator up and remove it through the owner the pages use.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIMultiFactorTests {
    static let password = "Correct-horse-battery-9"

    /// The `st-mfa` claim of the newest front-token.
    private static func mfa(_ app: FDIScript) -> [String: Any]? {
        (app.front["up"] as? [String: Any])?["st-mfa"] as? [String: Any]
    }

    private static func code(_ secret: [UInt8], _ gatehouse: TestGatehouse) throws -> String {
        try TOTP.code(secret: secret, at: gatehouse.clock.now)
    }

    private static func wrong(_ right: String) -> String { right == "000000" ? "111111" : "000000" }

    /// Sign in → a token owing the step (no session, no refresh token; other routes answer 403
    /// `invalid claim`) → `mfa/info` names `totp` next → a wrong code counted → the right one opens
    /// the session, both factors in its claim; the spent step takes no second code.
    @Test func aPasswordSignInOwesTheAuthenticatorThenOpensTheSession() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse, email: "mo@example.com")
        let app = FDIScript(gatehouse)
        let first = try await app.emailPassword("signin", "mo@example.com", TOTPPageTests.password)
        #expect(first.json["status"] as? String == "OK" && (first.json["user"] as? [String: Any])?["id"] != nil, "\(first.json)")
        #expect(app.accessToken != nil && app.refreshToken == nil, "a token, but no session to refresh")
        #expect(Self.mfa(app)?["v"] as? Bool == false)
        let owing = try #require(app.accessToken)

        let held = try await app.call("GET", "/auth/user/email/verify", rid: "emailverification")
        #expect(held.status == 403 && held.json["message"] as? String == "invalid claim", "\(held.json)")
        let errors = held.json["claimValidationErrors"] as? [[String: Any]]
        #expect(errors?.first?["id"] as? String == "st-mfa")
        let info = try await app.call("PUT", "/auth/mfa/info", rid: "multifactorauth")
        #expect(((info.json["factors"] as? [String: Any])?["next"] as? [String]) == ["totp"], "\(info.json)")

        let wrong = try await app.call(
            "POST", "/auth/totp/verify", ["totp": Self.wrong(try Self.code(secret, gatehouse))], rid: "totp")
        #expect(wrong.json["status"] as? String == "INVALID_TOTP_ERROR", "\(wrong.json)")
        #expect(wrong.json["currentNumberOfFailedAttempts"] as? Int == 1 && wrong.json["maxNumberOfFailedAttempts"] as? Int == 5)
        let right = try await app.call("POST", "/auth/totp/verify", ["totp": try Self.code(secret, gatehouse)], rid: "totp")
        #expect(right.status == 200 && right.json["status"] as? String == "OK", "\(right.json)")
        #expect(app.refreshToken != nil && app.accessToken != owing)
        let claim = try #require(Self.mfa(app))
        #expect(claim["v"] as? Bool == true)
        #expect(Set(((claim["c"] as? [String: Any]) ?? [:]).keys) == ["emailpassword", "totp"])
        #expect(try await app.call("GET", "/auth/user/email/verify", rid: "emailverification").status == 200)
        #expect(try await app.refresh().status == 200)

        // The spent step's token takes no second code, and it is no session anywhere.
        let replay = FDIScript(gatehouse)
        replay.accessToken = owing
        gatehouse.clock.advance(30)
        let again = try await replay.call("POST", "/auth/totp/verify", ["totp": try Self.code(secret, gatehouse)], rid: "totp")
        #expect(again.json["status"] as? String == "INVALID_TOTP_ERROR", "\(again.json)")
        #expect(try await replay.call("POST", "/auth/user/email/verify/token", rid: "emailverification").status == 403)
    }

    /// In a session that owes nothing, `totp/verify` checks a code as SuperTokens' core does (a
    /// step-up): without an authenticator `UNKNOWN_USER_ID_ERROR`; a wrong code counted; the right
    /// one renews `totp` in the session's `st-mfa` (same session: it still refreshes); that code
    /// again is spent.
    @Test func aSignedInSessionStepsUpWithItsAuthenticator() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let plain = FDIScript(gatehouse)
        #expect(try await plain.emailPassword("signup", "ivy@example.com", Self.password).status == 200)
        let none = try await plain.call("POST", "/auth/totp/verify", ["totp": "123456"], rid: "totp")
        #expect(none.json["status"] as? String == "UNKNOWN_USER_ID_ERROR", "\(none.json)")

        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse, email: "mo@example.com")
        let app = FDIScript(gatehouse)
        _ = try await app.emailPassword("signin", "mo@example.com", TOTPPageTests.password)
        _ = try await app.call("POST", "/auth/totp/verify", ["totp": try Self.code(secret, gatehouse)], rid: "totp")
        let firstStep = try #require((Self.mfa(app)?["c"] as? [String: Any])?["totp"] as? Double)
        let refreshToken = app.refreshToken
        gatehouse.clock.advance(60)

        let code = try Self.code(secret, gatehouse)
        let wrong = try await app.call("POST", "/auth/totp/verify", ["totp": Self.wrong(code)], rid: "totp")
        #expect(wrong.json["status"] as? String == "INVALID_TOTP_ERROR", "\(wrong.json)")
        #expect(wrong.json["currentNumberOfFailedAttempts"] as? Int == 1)
        let right = try await app.call("POST", "/auth/totp/verify", ["totp": code], rid: "totp")
        #expect(right.json["status"] as? String == "OK", "\(right.json)")
        let claim = try #require(Self.mfa(app))
        #expect(claim["v"] as? Bool == true && ((claim["c"] as? [String: Any])?["totp"] as? Double ?? 0) > firstStep)
        #expect(app.refreshToken == refreshToken)
        #expect(try await app.refresh().status == 200)
        let replayed = try await app.call("POST", "/auth/totp/verify", ["totp": code], rid: "totp")
        #expect(replayed.json["status"] as? String == "INVALID_TOTP_ERROR", "a code works once: \(replayed.json)")
    }

    /// A mailed code for an account with an authenticator owes the step the same way.
    @Test func aPasswordlessSignInOwesTheStepToo() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse, email: "pat@example.com")
        let app = FDIScript(gatehouse)
        let device = try await SuperTokensFDIPasswordlessTests.startCode(app, "pat@example.com")
        let consumed = try await SuperTokensFDIPasswordlessTests.consume(
            app, device, try await gatehouse.latestCode(for: "pat@example.com"))
        #expect(consumed["status"] as? String == "OK" && Self.mfa(app)?["v"] as? Bool == false, "\(consumed)")
        let right = try await app.call("POST", "/auth/totp/verify", ["totp": try Self.code(secret, gatehouse)], rid: "totp")
        #expect(right.json["status"] as? String == "OK", "\(right.json)")
        #expect(Set(((Self.mfa(app)?["c"] as? [String: Any]) ?? [:]).keys) == ["otp-email", "totp"])
    }

    /// The device routes: a key, a wrong then a right first code (the claim gains `totp`), the
    /// next sign-in owes it; removal only in a recent sign-in.
    @Test func anAuthenticatorIsSetUpAndRemovedThroughTheFDI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "kit@example.com", Self.password).status == 200)
        let created = try await app.call("POST", "/auth/totp/device", [:], rid: "totp")
        #expect(created.json["status"] as? String == "OK" && created.json["deviceName"] as? String == "TOTP Device 0")
        #expect((created.json["qrCodeString"] as? String)?.hasPrefix("otpauth://totp/") == true, "\(created.json)")
        let text = try #require(created.json["secret"] as? String)
        let secret = try #require(Base32.decode(text))
        let listed = try await app.call("GET", "/auth/totp/device/list", rid: "totp")
        #expect((listed.json["devices"] as? [[String: Any]])?.first?["verified"] as? Bool == false, "\(listed.json)")
        let device = ["deviceName": "TOTP Device 0"]
        let wrong = try await app.call(
            "POST", "/auth/totp/device/verify", device.merging(["totp": Self.wrong(try Self.code(secret, gatehouse))]) { $1 },
            rid: "totp")
        #expect(wrong.json["status"] as? String == "INVALID_TOTP_ERROR", "\(wrong.json)")
        let verified = try await app.call(
            "POST", "/auth/totp/device/verify", device.merging(["totp": try Self.code(secret, gatehouse)]) { $1 }, rid: "totp")
        #expect(verified.json["status"] as? String == "OK" && verified.json["wasAlreadyVerified"] as? Bool == false)
        #expect((Self.mfa(app)?["c"] as? [String: Any])?["totp"] != nil)

        gatehouse.clock.advance(16 * 60)
        let stale = try await app.call("POST", "/auth/totp/device/remove", device, rid: "totp")
        #expect(stale.json["status"] as? String == "GENERAL_ERROR", "a session older than the window: \(stale.json)")
        let later = FDIScript(gatehouse)
        _ = try await later.emailPassword("signin", "kit@example.com", Self.password)
        #expect(Self.mfa(later)?["v"] as? Bool == false, "the new authenticator is the account's second step")
        _ = try await later.call("POST", "/auth/totp/verify", ["totp": try Self.code(secret, gatehouse)], rid: "totp")
        let removed = try await later.call("POST", "/auth/totp/device/remove", device, rid: "totp")
        #expect(removed.json["status"] as? String == "OK" && removed.json["didDeviceExist"] as? Bool == true, "\(removed.json)")
        let none = try await later.call("GET", "/auth/totp/device/list", rid: "totp")
        #expect((none.json["devices"] as? [Any])?.isEmpty == true)
    }

    /// A token owing its step cannot set up or remove the authenticator: the SDK's 403.
    @Test func anOwedStepCannotChangeTheAuthenticator() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await TOTPPageTests.enrolled(gatehouse, email: "lee@example.com")
        let app = FDIScript(gatehouse)
        _ = try await app.emailPassword("signin", "lee@example.com", TOTPPageTests.password)
        let removed = try await app.call("POST", "/auth/totp/device/remove", ["deviceName": "TOTP Device 0"], rid: "totp")
        #expect(removed.status == 403, "\(removed.json)")
        #expect(try await app.call("POST", "/auth/totp/device", [:], rid: "totp").status == 403)
        let listed = try await app.call("GET", "/auth/totp/device/list", rid: "totp")
        #expect((listed.json["devices"] as? [[String: Any]])?.first?["verified"] as? Bool == true)
    }

    /// A session an app's backend opened through the core before its MFA recipe's step (its
    /// `st-mfa` unmet) is no signed-in session at the FDI either.
    @Test func aCoreSessionOwingItsStepIsHeldAtTheFDI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "sam@example.com", Self.password).status == 200)
        let userID = try #require(app.front["uid"] as? String)
        let opened = try await SuperTokensCoreLookupTests.core(
            gatehouse, "POST", "/recipe/session",
            [
                "userId": userID, "userDataInJWT": ["st-mfa": ["c": ["emailpassword": 1], "v": false]], "userDataInDatabase": [:],
                "enableAntiCsrf": false
            ])
        let backend = FDIScript(gatehouse)
        backend.accessToken = try #require((opened.json["accessToken"] as? [String: Any])?["token"] as? String, "\(opened.json)")
        let held = try await backend.call("GET", "/auth/user/email/verify", rid: "emailverification")
        #expect(held.status == 403 && held.json["message"] as? String == "invalid claim", "\(held.json)")
    }
}
