import Foundation
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

/// A clock per account reaches what is not a session (issue 47, README "Test controls"): a pending
/// second step, the "this wasn't me" link, the password's back-off — each ends in its account's
/// time, without real waiting, and another account's stays as it was.
@Suite(.stopsWhatItStarts) struct AccountClockExpiryTests {
    static let password = "correct horse battery"

    /// Two accounts each half-way through a two-step sign-in: six minutes on for one, its step has
    /// ended (past its five) and the right code starts over; the other's completes.
    @Test func aPendingSecondStepEndsInItsAccountsTime() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let script = try await TestControlsScript(gatehouse)
        let (_, adaKey, _) = try await TOTPPageTests.enrolled(gatehouse, email: "ada@example.com")
        let (_, bobKey, _) = try await TOTPPageTests.enrolled(gatehouse, email: "bob@example.com")
        let ada = try await TOTPPageTests.passwordStep(gatehouse, email: "ada@example.com")
        let bob = try await TOTPPageTests.passwordStep(gatehouse, email: "bob@example.com")
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 6 * 60]).status == 200)

        let adaCode = try TOTP.code(secret: adaKey, at: gatehouse.clock.now)
        let ended = try await ada.post("/auth/mfa", [("code", adaCode), ("redirect", "/account")])
        #expect(ended.header("Location") == "/auth/sign-in?notice=mfa-expired", "\(ended.status)")
        let bobCode = try TOTP.code(secret: bobKey, at: gatehouse.clock.now)
        let kept = try await bob.post("/auth/mfa", [("code", bobCode), ("redirect", "/account")])
        #expect(kept.header("Location") == "/account", "\(kept.status)")
        await gatehouse.stop()
    }

    /// The sign-up mail's "this wasn't me" link lives a day in its account's time: a day and a
    /// minute on for one account, its link no longer removes it; the other's still would.
    @Test func aDisownLinkEndsInItsAccountsTime() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let script = try await TestControlsScript(gatehouse)
        var links: [String: String] = [:]
        for email in ["ada@example.com", "bob@example.com"] {
            let created = try await script.call("POST", "/api/auth/users", ["email": email, "password": Self.password])
            #expect(created.status == 200, "\(created.text)")
            links[email] = try await Self.notMeLink(gatehouse, to: email)
        }
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 24 * 3600 + 60]).status == 200)
        let ada = try await gatehouse.browser().get(try #require(links["ada@example.com"]))
        #expect(ada.status == 400 && ada.text.contains("has expired"), "ada's link answered \(ada.status)")
        let bob = try await gatehouse.browser().get(try #require(links["bob@example.com"]))
        #expect(bob.status == 200 && bob.text.contains("remove the account"), "bob's link answered \(bob.status)")
        await gatehouse.stop()
    }

    /// Ten wrong passwords back both accounts off for half a minute. Two days on for one (past the
    /// hour the tries are counted), its right password signs in; the other is still backed off —
    /// the counts kept in one account's time do not age out anyone else's — until `expire-now`
    /// of `budgets` forgets its counts.
    @Test func aPasswordBackOffEndsInItsAccountsTimeAndNoOneElses() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        gatehouse.clock.freeze()
        let script = try await TestControlsScript(gatehouse)
        for email in ["ada@example.com", "bob@example.com"] {
            _ = try await script.call(
                "POST", "/_/api/users", ["email": email, "password": Self.password, "verified": true],
                headers: [("Authorization", "Bearer \(script.token)")])
            for _ in 0..<10 { _ = try await Self.signIn(script, email, "not the password") }
            let locked = try await Self.signIn(script, email, Self.password)
            #expect(locked.status == 429, "\(email) is backed off: \(locked.status) \(locked.text)")
        }
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 2 * 24 * 3600]).status == 200)
        let ada = try await Self.signIn(script, "ada@example.com", Self.password)
        #expect(ada.status == 200 && ada.json["token"] is String, "\(ada.text)")
        #expect(try await Self.signIn(script, "bob@example.com", Self.password).status == 429, "bob is still backed off")

        let forgot = try await script.control("clock/expire-now", ["email": "bob@example.com", "kind": "budgets"])
        #expect(forgot.status == 200 && (forgot.json["ended"] as? Int ?? 0) >= 10, "\(forgot.text)")
        #expect(try await Self.signIn(script, "bob@example.com", Self.password).status == 200)
        await gatehouse.stop()
    }

    /// `expire-now` counts what the person held, each once: five ways signed in are five sessions
    /// (not the rows behind them); then pending second steps, codes and links end at once.
    @Test func expireNowEndsEachKindAndCountsWhatWasLive() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let script = try await TestControlsScript(gatehouse)
        let (_, key, _) = try await TOTPPageTests.enrolled(gatehouse, email: "ada@example.com")
        let pending = try await TOTPPageTests.passwordStep(gatehouse, email: "ada@example.com")
        let steps = try await script.control("clock/expire-now", ["email": "ada@example.com", "kind": "second-steps"])
        #expect(steps.status == 200 && steps.json["ended"] as? Int == 1, "\(steps.text)")
        let code = try TOTP.code(secret: key, at: gatehouse.clock.now)
        let refused = try await pending.post("/auth/mfa", [("code", code), ("redirect", "/account")])
        #expect(refused.header("Location") == "/auth/sign-in?notice=mfa-expired")

        _ = try await script.account("bob@example.com")
        _ = try await script.signInEveryWay("bob@example.com")
        let sessions = try await script.control("clock/expire-now", ["email": "bob@example.com", "kind": "sessions"])
        #expect(sessions.status == 200 && sessions.json["ended"] as? Int == 5, "\(sessions.text)")
        let again = try await script.control("clock/expire-now", ["email": "bob@example.com", "kind": "sessions"])
        #expect(again.json["ended"] as? Int == 0, "nothing was left live: \(again.text)")
        await gatehouse.stop()
    }

    /// A mailed code and a mailed link end at once by kind; the other kind is left.
    @Test func expireNowEndsCodesOrLinks() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let script = try await TestControlsScript(gatehouse)
        let created = try await script.call(
            "POST", "/api/auth/users?client_type=mobile", ["email": "cy@example.com", "password": Self.password])
        #expect(created.status == 200, "\(created.text)")
        let code = try await gatehouse.latestCode(for: "cy@example.com")
        let link = try await Self.notMeLink(gatehouse, to: "cy@example.com")
        let codes = try await script.control("clock/expire-now", ["email": "cy@example.com", "kind": "codes"])
        #expect(codes.status == 200 && codes.json["ended"] as? Int == 1, "\(codes.text)")
        let verify = try await script.call(
            "POST", "/api/auth/email/verify?client_type=mobile", ["email": "cy@example.com", "otp": code])
        #expect(verify.status == 400 && verify.json["accessToken"] == nil, "\(verify.text)")
        #expect(try await gatehouse.browser().get(link).status == 200, "the link is another kind")
        let links = try await script.control("clock/expire-now", ["email": "cy@example.com", "kind": "links"])
        #expect(links.status == 200 && links.json["ended"] as? Int == 1, "\(links.text)")
        #expect(try await gatehouse.browser().get(link).status == 400)
        let kinds = try await script.control("clock/expire-now", ["email": "cy@example.com", "kind": "everything"])
        #expect(kinds.status == 400 && (kinds.json["message"] as? String)?.contains("second-steps") == true)
        await gatehouse.stop()
    }

    /// PocketBase's password sign-in, as an app's SDK sends it.
    static func signIn(_ script: TestControlsScript, _ email: String, _ password: String) async throws -> TestResponse {
        try await script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": email, "password": password])
    }

    /// The path and query of the "this wasn't me" link in the newest mail to `email`.
    static func notMeLink(_ gatehouse: TestGatehouse, to email: String) async throws -> String {
        let mail = try #require(try await gatehouse.mails(to: email).first)
        let text = try #require(mail["text"] as? String, "\(mail.keys)")
        let start = try #require(text.range(of: "/auth/not-me?token="), "no link in \(text)")
        let end = text[start.lowerBound...].firstIndex(where: \.isWhitespace) ?? text.endIndex
        return String(text[start.lowerBound..<end])
    }
}
