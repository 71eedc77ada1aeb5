import Foundation
import HTTPTestClient
import OAuth
import TestScope
import Testing
import TwoFactor

/// Issue 10, item 4: two-step sign-in with an authenticator app and recovery codes, as a person
/// meets it in the browser — enrolment on `/account/security`, the second step on `/auth/mfa`.
@Suite(.stopsWhatItStarts) struct TOTPPageTests {
    static let email = "two@example.com"
    static let password = "quiet-otter-123"

    /// The base32 key the enrolment page shows (`data-totp-secret`).
    static func secret(in html: String) throws -> [UInt8] {
        let match = try #require(html.range(of: #"data-totp-secret="[A-Z2-7]+""#, options: .regularExpression))
        let text = String(html[match].dropFirst(18).dropLast())
        return try #require(TOTPSecret(base32: text)).bytes
    }

    /// The recovery codes a page shows once (`data-recovery-code`).
    static func recoveryCodes(in html: String) -> [String] {
        html.components(separatedBy: "<code data-recovery-code>").dropFirst().compactMap {
            $0.components(separatedBy: "</code>").first
        }
    }

    /// Signs a new account up (no verification), turns TOTP on, and moves the clock past the
    /// confirming code's step. Returns the browser (signed in), the key and the recovery codes.
    static func enrolled(_ gatehouse: TestGatehouse, email: String = email) async throws -> (Browser, [UInt8], [String]) {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", email), ("password", password)])
        let (secret, codes) = try await enrol(browser, clock: gatehouse.clock)
        return (browser, secret, codes)
    }

    static func enrol(_ browser: Browser, clock: TestClock) async throws -> ([UInt8], [String]) {
        let security = try await browser.get("/account/security")
        #expect(security.status == 200 && security.text.contains(#"data-totp-status="off""#))
        let begun = try await browser.post("/account/security/totp/begin", [])
        #expect(begun.status == 200)
        #expect(begun.text.contains("<svg") && begun.text.contains("otpauth://totp/Gatehouse:"))
        let secret = try Self.secret(in: begun.text)
        let right = try TOTP.code(secret: secret, at: clock.now)
        let refused = try await browser.post(
            "/account/security/totp/confirm", [("code", right == "000000" ? "111111" : "000000")])
        #expect(refused.status == 422 && refused.text.contains("Check that your app shows the Gatehouse key"))
        #expect(try Self.secret(in: refused.text) == secret, "the same key is shown again")
        #expect(recoveryCodes(in: refused.text).isEmpty)
        let confirmed = try await browser.post("/account/security/totp/confirm", [("code", right)])
        #expect(confirmed.status == 200)
        let codes = recoveryCodes(in: confirmed.text)
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(confirmed.text.contains("I saved them"))
        let after = try await browser.get("/account/security?notice=totp-on")
        #expect(after.text.contains(#"data-totp-status="on""#) && after.text.contains(#"data-recovery-codes-left="10""#))
        #expect(recoveryCodes(in: after.text).isEmpty, "the codes are shown once")
        clock.advance(30)
        return (secret, codes)
    }

    /// A fresh browser whose right password led to `/auth/mfa`.
    static func passwordStep(_ gatehouse: TestGatehouse, email: String = email) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
        #expect(response.status == 303)
        #expect(response.header("Location") == "/auth/mfa?redirect=%2Faccount")
        #expect(browser.cookie("gh_mfa") != nil)
        #expect(try await browser.get("/account", follow: false).status == 303, "not signed in yet")
        let page = try await browser.get("/auth/mfa?redirect=%2Faccount")
        #expect(page.status == 200 && page.text.contains("Use a recovery code"))
        return browser
    }

    @Test func enrolThenSignInAsksForTheCodeAndACodeWorksOnce() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (browser, secret, _) = try await Self.enrolled(gatehouse)
        _ = try await browser.post("/auth/sign-out", [])

        let second = try await Self.passwordStep(gatehouse)
        let code = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let done = try await second.post("/auth/mfa", [("code", code), ("redirect", "/account")])
        #expect(done.status == 303 && done.header("Location") == "/account")
        #expect(try await second.get("/account", follow: false).status == 200)

        // The same code again, inside its step, on another sign-in: refused.
        let replay = try await Self.passwordStep(gatehouse)
        let refused = try await replay.post("/auth/mfa", [("code", code), ("redirect", "/account")])
        #expect(refused.status == 422 && refused.text.contains("Enter the current code from your authenticator app."))
        #expect(try await replay.get("/account", follow: false).status == 303)
        gatehouse.clock.advance(30)
        let next = try await replay.post(
            "/auth/mfa", [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now)), ("redirect", "/account")])
        #expect(next.header("Location") == "/account")

        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("totp.enabled") && types.contains("mfa.completed") && types.contains("mfa.failed"))
        await gatehouse.stop()
    }

    @Test func theSixthTryIsRefusedEvenWhenRightAndAnExpiredStepStartsOver() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await Self.enrolled(gatehouse)
        let browser = try await Self.passwordStep(gatehouse)
        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let wrong = right == "000000" ? "111111" : "000000"
        for _ in 0..<5 {
            #expect(try await browser.post("/auth/mfa", [("code", wrong), ("redirect", "/account")]).status == 422)
        }
        let sixth = try await browser.post("/auth/mfa", [("code", right), ("redirect", "/account")])
        #expect(sixth.status == 303 && sixth.header("Location") == "/auth/sign-in?notice=mfa-expired")
        #expect(try await browser.get("/account", follow: false).status == 303)

        let late = try await Self.passwordStep(gatehouse)
        gatehouse.clock.advance(6 * 60)
        let expired = try await late.post(
            "/auth/mfa", [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now)), ("redirect", "/account")])
        #expect(expired.header("Location") == "/auth/sign-in?notice=mfa-expired")
        #expect(try await late.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }

    @Test func aRecoveryCodeSignsInOnce() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, _, codes) = try await Self.enrolled(gatehouse)
        let browser = try await Self.passwordStep(gatehouse)
        let form = try await browser.get("/auth/mfa?redirect=%2Faccount&method=recovery")
        #expect(form.text.contains(#"name="recovery_code""#) && !form.text.contains(#"name="code""#))
        let used = try await browser.post("/auth/mfa", [("recovery_code", codes[3].uppercased()), ("redirect", "/account")])
        #expect(used.header("Location") == "/account/security?notice=recovery-code-used", "told how many are left")
        let security = try await browser.get("/account/security?notice=recovery-code-used")
        #expect(security.text.contains(#"data-recovery-codes-left="9""#))
        #expect(security.text.contains("which now works no more"))

        let again = try await Self.passwordStep(gatehouse)
        let refused = try await again.post("/auth/mfa", [("recovery_code", codes[3]), ("redirect", "/account")])
        #expect(refused.status == 422 && refused.text.contains("already used"))
        #expect(try await again.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }

    @Test func turningOffAndNewCodesNeedThePassword() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (browser, _, codes) = try await Self.enrolled(gatehouse)
        let wrongRegen = try await browser.post("/account/security/totp/recovery-codes", [("password", "not-the-password")])
        #expect(wrongRegen.status == 422 && Self.recoveryCodes(in: wrongRegen.text).isEmpty)
        let regenerated = try await browser.post("/account/security/totp/recovery-codes", [("password", Self.password)])
        let fresh = Self.recoveryCodes(in: regenerated.text)
        #expect(fresh.count == 10 && Set(fresh).isDisjoint(with: codes))

        let wrong = try await browser.post("/account/security/totp/disable", [("password", "not-the-password")])
        #expect(wrong.status == 422 && wrong.text.contains("That password isn"))
        #expect(wrong.text.contains(#"data-totp-status="on""#))
        let off = try await browser.post("/account/security/totp/disable", [("password", Self.password)])
        #expect(off.header("Location") == "/account/security?notice=totp-off")
        _ = try await browser.post("/auth/sign-out", [])
        let signIn = gatehouse.browser()
        _ = try await signIn.get("/auth/sign-in")
        let direct = try await signIn.post("/auth/sign-in", [("email", Self.email), ("password", Self.password)])
        #expect(direct.header("Location") == "/account")
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("totp.disabled") && types.contains("totp.recovery_codes_regenerated"))
        await gatehouse.stop()
    }

    @Test func theSecondStepWithoutAPendingSignInGoesBackToSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = gatehouse.browser()
        let page = try await browser.get("/auth/mfa", follow: false)
        #expect(page.status == 303 && page.header("Location") == "/auth/sign-in")
        _ = try await browser.get("/auth/sign-in")
        let posted = try await browser.post("/auth/mfa", [("code", "123456"), ("redirect", "/account")])
        #expect(posted.status == 303 && posted.header("Location") == "/auth/sign-in")
        await gatehouse.stop()
    }

    @Test func codeVerificationAsksForTheSecondStep() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", Self.email), ("password", Self.password)])
        _ = try await browser.post(
            "/auth/verify", [("email", Self.email), ("code", try await gatehouse.latestCode(for: Self.email))])
        let (secret, _) = try await Self.enrol(browser, clock: gatehouse.clock)
        // Support marks the address unverified; the person verifies it again with a mailed code.
        let staff = try await gatehouse.staffBrowser()
        let userID = try #require(try await gatehouse.database.user(email: Self.email)?.id.rawValue)
        _ = try await staff.get("/_/users/\(userID)")
        _ = try await staff.post("/_/users/\(userID)/verify", [("verified", "false")])
        #expect(try await gatehouse.database.user(email: Self.email)?.verified == false)
        _ = try await staff.post("/_/users/\(userID)/resend", [])

        let fresh = gatehouse.browser()
        _ = try await fresh.get("/auth/verify?email=two%40example.com")
        let verified = try await fresh.post(
            "/auth/verify", [("email", Self.email), ("code", try await gatehouse.latestCode(for: Self.email))])
        #expect(verified.status == 303)
        #expect(verified.header("Location") == "/auth/mfa?redirect=%2Faccount%3Fnotice%3Dverified")
        #expect(try await fresh.get("/account", follow: false).status == 303)
        _ = try await fresh.get("/auth/mfa?redirect=%2Faccount%3Fnotice%3Dverified")
        let done = try await fresh.post(
            "/auth/mfa",
            [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now)), ("redirect", "/account?notice=verified")])
        #expect(done.header("Location") == "/account?notice=verified")
        #expect(try await fresh.get("/account", follow: false).status == 200)
        await gatehouse.stop()
    }

    @Test func supportCannotChangeItWhileImpersonatingAndCanResetIt() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await Self.enrolled(gatehouse)
        let userID = try #require(try await gatehouse.database.user(email: Self.email)?.id.rawValue)
        let staff = try await gatehouse.staffBrowser()
        let userPage = try await staff.get("/_/users/\(userID)")
        #expect(userPage.text.contains(#"data-totp-status="on""#))

        // Impersonating: the status shows, every change is refused.
        let opened = try await staff.post("/_/users/\(userID)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        let security = try await staff.get("/account/security")
        #expect(security.status == 200 && !security.text.contains("/account/security/totp/disable"))
        #expect(try await staff.post("/account/security/totp/disable", [("password", Self.password)]).status == 403)
        #expect(try await staff.post("/account/security/totp/begin", []).status == 403)
        _ = try await staff.post("/_/impersonation/stop", [])

        _ = try await staff.get("/_/users/\(userID)")
        let reset = try await staff.post("/_/users/\(userID)/totp/reset", [])
        #expect(reset.header("Location") == "/_/users/\(userID)?notice=totp-reset")
        #expect(try await staff.get("/_/users/\(userID)").text.contains(#"data-totp-status="off""#))
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let direct = try await browser.post("/auth/sign-in", [("email", Self.email), ("password", Self.password)])
        #expect(direct.header("Location") == "/account")
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 200).map(\.type)
        #expect(types.contains("admin.user.totp_reset"))
        await gatehouse.stop()
    }

    @Test func aSuperuserTurnsOnTOTPForTheConsoleAndThenSignsInWithACode() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser(email: "root@example.com", password: "staff-password-1")
        let page = try await staff.get("/_/security").text
        #expect(page.contains(#"data-totp-status="off""#))
        // The superuser's own page is none of the navigation's sections: its own link is the current one.
        #expect(page.contains(#"href="/_/security" aria-current="page""#))
        #expect(!page.contains(#"cx-nav__link" href="/_/users" aria-current"#))
        let begun = try await staff.post("/_/security/totp/begin", [])
        #expect(begun.status == 200 && begun.text.contains("<svg"))
        let secret = try Self.secret(in: begun.text)
        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        #expect(
            try await staff.post("/_/security/totp/confirm", [("code", right == "000000" ? "111111" : "000000")]).status == 422)
        let on = try await staff.post("/_/security/totp/confirm", [("code", right)])
        #expect(on.status == 200 && on.text.contains("data-recovery-codes"), "the recovery codes, shown once")
        gatehouse.clock.advance(30)

        // The password alone no longer signs in: a second form asks for the code, five tries.
        let browser = gatehouse.browser()
        _ = try await browser.get("/_/")
        let first = try await browser.post("/_/", [("email", "root@example.com"), ("password", "staff-password-1")])
        #expect(first.status == 200 && first.text.contains("data-console-second-step"))
        #expect(try await browser.get("/_/users", follow: false).status == 303, "not signed in yet")
        let code = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<5 {
            #expect(try await browser.post("/_/second-step", [("code", wrong)]).status == 422)
        }
        let sixth = try await browser.post("/_/second-step", [("code", code)])
        #expect(sixth.status == 401, "the sixth try is refused even when right")

        _ = try await browser.get("/_/")
        _ = try await browser.post("/_/", [("email", "root@example.com"), ("password", "staff-password-1")])
        let done = try await browser.post("/_/second-step", [("code", code)])
        #expect(done.status == 303 && done.header("Location") == "/_/users")
        #expect(try await browser.get("/_/users", follow: false).status == 200)
        // The same code cannot sign in a second browser (replay).
        let other = gatehouse.browser()
        _ = try await other.get("/_/")
        _ = try await other.post("/_/", [("email", "root@example.com"), ("password", "staff-password-1")])
        #expect(try await other.post("/_/second-step", [("code", code)]).status == 422)
        // Without a pending step (no cookie), a code signs nobody in.
        let stranger = gatehouse.browser()
        _ = try await stranger.get("/_/")
        #expect(try await stranger.post("/_/second-step", [("code", code)]).status == 401)

        // The admin API asks for the code too.
        let api = HTTPTestClient(port: gatehouse.port)
        let noCode = try await api.request(
            "POST", "/_/api/auth", headers: [("Content-Type", "application/json")],
            body: Array(#"{"email":"root@example.com","password":"staff-password-1"}"#.utf8))
        #expect(noCode.status == 401)
        gatehouse.clock.advance(30)
        let withCode = try await api.request(
            "POST", "/_/api/auth", headers: [("Content-Type", "application/json")],
            body: Array(
                #"{"email":"root@example.com","password":"staff-password-1","code":"\#(try TOTP.code(secret: secret, at: gatehouse.clock.now))"}"#
                    .utf8))
        #expect(withCode.status == 200)

        _ = try await browser.get("/_/security")
        #expect(try await browser.post("/_/security/totp/disable", [("password", "wrong-password")]).status == 422)
        let off = try await browser.post("/_/security/totp/disable", [("password", "staff-password-1")])
        #expect(off.header("Location") == "/_/security?notice=totp-off")
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 200).map(\.type)
        #expect(types.contains("console.totp.enabled") && types.contains("console.totp.disabled"))
        await gatehouse.stop()
    }

    @Test func providerSignInOnTheHostedPageAsksForTheCodeThenHandsTheAppItsCode() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        try await gatehouse.admin("/_/api/apps", ["id": "notes", "name": "Notes", "callbackURLs": ["notesapp://auth/callback"]])
        let verifier = "app-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
        let appQuery = FormEncoding.encode([
            ("redirect", "notesapp://auth/callback"), ("client_type", "mobile"),
            ("code_challenge", try PKCE.challenge(for: verifier))
        ])

        /// Through the provider button of the hosted page to Gatehouse's callback; its answer.
        func viaProvider(_ browser: Browser) async throws -> TestResponse {
            let page = try await browser.get("/auth/sign-in?" + appQuery)
            let button = try #require(page.text.range(of: #"href="(/auth/oauth/acme\?[^"]+)""#, options: .regularExpression))
            let href = String(page.text[button].dropFirst(6).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
            let chooserPath = try #require(try await browser.get(href, follow: false).header("Location"))
            _ = try await browser.get(chooserPath)
            var fields: [(String, String)] = []
            for name in [
                "response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"
            ] {
                fields.append((name, try #require(queryItem(name, in: "http://x" + chooserPath))))
            }
            let chosen = try await browser.post("/_/test-idp/acme/authorize", fields + [("action", "fixed-0")])
            let link = try #require(chosen.text.range(of: #"data-continue-url="[^"]+""#, options: .regularExpression))
            let callback = String(chosen.text[link].dropFirst(19).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
            return try await browser.get(pathAndQuery(callback), follow: false)
        }

        // The first provider sign-in creates the account (no password); it turns TOTP on.
        let browser = gatehouse.browser()
        let created = try await viaProvider(browser)
        #expect(try #require(created.header("Location")).hasPrefix("notesapp://auth/callback?insforge_code="))
        let (secret, _) = try await Self.enrol(browser, clock: gatehouse.clock)

        let again = gatehouse.browser()
        let asked = try await viaProvider(again)
        let mfaPath = try #require(asked.header("Location"))
        #expect(mfaPath == "/auth/mfa?redirect=%2Fauth%2Fapp%2Freturn")
        let continueTo = try #require(queryItem("redirect", in: "http://x" + mfaPath))
        _ = try await again.get(mfaPath)
        let done = try await again.post(
            "/auth/mfa", [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now)), ("redirect", continueTo)])
        #expect(done.header("Location") == continueTo)
        // The app's request came along in the sealed `gh_app` cookie; the return page links its callback.
        let back = try await again.get(continueTo, follow: false)
        #expect(back.text.contains(#"href="notesapp://auth/callback?insforge_code="#))

        // No password on this account: turning TOTP off takes a current code instead.
        gatehouse.clock.advance(30)
        _ = try await again.get("/account/security")
        #expect(try await again.post("/account/security/totp/disable", [("password", "anything")]).status == 422)
        let off = try await again.post(
            "/account/security/totp/disable", [("password", try TOTP.code(secret: secret, at: gatehouse.clock.now))])
        #expect(off.header("Location") == "/account/security?notice=totp-off")
        await gatehouse.stop()
    }
}
