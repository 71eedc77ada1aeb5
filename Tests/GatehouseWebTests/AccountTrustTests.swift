import Foundation
import HTTPTestClient
import Secrets
import TestScope
import Testing
import WebAuthnTestSupport

/// Issue 42, items 1 and 2, the other side of `AccountTrustAttackTests`: what a proof keeps (the
/// vendors' own sign-up → verify → go-on flows), a provider that vouches as a proof, and what an
/// unproven account may not do — a passkey opens no session for it, and it gets no new way in.
@Suite(.stopsWhatItStarts) struct AccountTrustTests {
    static let victim = AccountTrustAttackTests.victim
    static let password = AccountTrustAttackTests.attackerPassword

    @Test func theSignUpsOwnMailKeepsThePasswordTheAccountWasMadeWith() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        let created = try await trust.script.call("POST", "/api/auth/users", ["email": Self.victim, "password": Self.password])
        #expect(created.status == 200, "\(created.text)")
        let code = try await trust.newestMail(to: Self.victim, with: "code")
        let verified = try await trust.script.call("POST", "/api/auth/email/verify", ["email": Self.victim, "otp": code])
        #expect(verified.status == 200, "\(verified.text)")
        #expect(try await trust.password(Self.victim, Self.password).alive(), "the sign-up's own password ended")
        await gatehouse.stop()
    }

    /// SuperTokens' flow: sign up, open a session, ask for the verification token, verify. The
    /// session open when the app asked goes on; one opened after it did not ask, and ends.
    @Test func anAppsVerificationKeepsTheSessionsLiveWhenItAsked() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        let signedUp = try await trust.superTokens("/recipe/signup", ["email": Self.victim, "password": Self.password])
        let user = try #require((signedUp.json["user"] as? [String: Any])?["id"] as? String, "\(signedUp.text)")
        func session() async throws -> AccountTrustScript.Holding {
            let opened = try await trust.superTokens(
                "/recipe/session", ["userId": user, "userDataInJWT": [:], "userDataInDatabase": [:], "enableAntiCsrf": false])
            let access = try #require((opened.json["accessToken"] as? [String: Any])?["token"] as? String, "\(opened.text)")
            return trust.superTokensSession(access)
        }
        let before = try await session()
        gatehouse.clock.advance(1)
        let asked = try await trust.superTokens("/recipe/user/email/verify/token", ["userId": user, "email": Self.victim])
        let token = try #require(asked.json["token"] as? String, "\(asked.text)")
        gatehouse.clock.advance(1)
        let after = try await session()
        let verified = try await trust.superTokens("/recipe/user/email/verify", ["token": token])
        #expect(verified.json["status"] as? String == "OK", "\(verified.text)")
        #expect(try await before.alive(), "the session live when the app asked ended")
        #expect(try await !after.alive(), "a session opened after the app asked survived")
        #expect(try await trust.password(Self.victim, Self.password).alive(), "the sign-up's password ended")
        await gatehouse.stop()
    }

    /// A provider that vouches for the address proves it: the owner's sign-in through it claims the
    /// account and ends what the attacker held, whichever way in they used.
    @Test func aVouchingProviderEndsWhatTheAttackerHeldOnEveryWayIn() async throws {
        let mock = try await OIDCProviderMock()
        defer { mock.stop() }
        for way in AccountTrustAttackTests.WayIn.allCases {
            let gatehouse = try await OAuthGatehouse(verification: .code)
            try await mock.serveAsLiveProvider(
                to: gatehouse, person: "owner-sub", ["email": Self.victim, "email_verified": true])
            let trust = AccountTrustScript(gatehouse: gatehouse)
            let held = try await AccountTrustAttackTests.attack(way, trust)
            let owner = gatehouse.browser()
            let signedIn = try await trust.signInThroughMock(owner, mock, subject: "owner-sub")
            #expect(signedIn.header("Location") == "/account", "\(way): the owner's sign-in answered \(signedIn.status)")
            for holding in held {
                #expect(try await !holding.alive(), "\(way): the attacker's \(holding.name) survived the provider's proof")
            }
            await gatehouse.stop()
        }
    }

    /// Item 2: a passkey sign-up lands on "verify your address"; until then its passkey opens no
    /// session on the pages (Descope's contract signs unverified accounts in: its session is
    /// provisional); the sign-up's own mail keeps the passkey.
    @Test func aPasskeyOpensNoSessionForAnUnprovenAccount() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        let authenticator = try trust.authenticator()
        let signedUp = try await trust.signUpWithPasskeyOnThePages(Self.victim, authenticator)
        let landing = try #require(signedUp.json["redirect"] as? String, "\(signedUp.text)")
        #expect(landing.hasPrefix("/auth/verify"), "the passkey sign-up landed on \(landing)")
        let user = try #require(try await gatehouse.database.user(email: Self.victim)?.id.rawValue)

        let browser = gatehouse.browser()
        let refused = try await trust.signInWithPasskeyOnThePages(
            Self.victim, authenticator, userHandle: user, signCount: 2, browser: browser)
        #expect(refused.status == 403 && refused.json["error"] as? String == "unproven", "\(refused.status) \(refused.text)")
        #expect(try await browser.get("/account", follow: false).status == 303, "the passkey opened a page session")
        let descope = try await trust.signInWithPasskeyOnDescope(Self.victim, authenticator, userHandle: user, signCount: 3)
        let provisional = try #require(descope.json["refreshJwt"] as? String, "Descope answered \(descope.text)")

        let code = try await trust.newestMail(to: Self.victim, with: "code")
        let verify = try await trust.script.call("POST", "/api/auth/email/verify", ["email": Self.victim, "otp": code])
        #expect(verify.status == 200, "\(verify.text)")
        #expect(try await !trust.descopeSession(provisional).alive(), "Descope's provisional session outlived the proof")
        let signedIn = try await trust.signInWithPasskeyOnThePages(
            Self.victim, authenticator, userHandle: user, signCount: 4, browser: browser)
        #expect(signedIn.status == 200, "after the proof the passkey answered \(signedIn.status) \(signedIn.text)")
        await gatehouse.stop()
    }

    /// Item 2: a page session on an unproven account (a sign-in at a provider that vouches for
    /// nothing) adds no way in — no authenticator app, no passkey, no first password.
    @Test func anUnprovenAccountGetsNoNewWayIn() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let browser = gatehouse.browser()
        let created = try await gatehouse.signInAtTestChooser(
            browser, provider: "acme", subject: "mallory", email: Self.victim, verified: false)
        #expect(created.header("Location") == "/account", "the chooser's sign-in answered \(created.status)")
        _ = try await browser.get("/account/security", headers: trust.localhost)

        let totp = try await browser.post("/account/security/totp/begin", [])
        #expect(totp.status == 422 && totp.text.contains("verify your email"), "TOTP enrolment answered \(totp.status)")
        let passkey = try await browser.post("/account/security/passkeys/options", [], headers: trust.localhost)
        #expect(passkey.status == 403, "passkey options answered \(passkey.status) \(passkey.text.prefix(200))")
        _ = try await browser.get("/account/security")
        let password = try await browser.post("/account/security/password", [("new_password", Self.password)])
        #expect(password.status != 303, "a first password was set on an unproven account")
        let stored = try #require(try await gatehouse.database.user(email: Self.victim))
        let passkeys = try await gatehouse.database.passkeys(of: stored.id)
        #expect(stored.passwordHash == nil && passkeys.isEmpty)
        await gatehouse.stop()
    }
}
