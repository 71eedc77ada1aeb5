import AuthCore
import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Issue 10, item 5: `/account/security` replaces the password after checking the current one; this
/// browser stays signed in, every other session ends.
@Suite(.stopsWhatItStarts) struct PasswordChangeTests {
    private let email = "changer@example.com"

    /// Signs the account up ("quiet-otter-123", no verification) and returns its browser.
    private func account(_ gatehouse: TestGatehouse) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")])
        #expect(try await browser.get("/account", follow: false).status == 200)
        return browser
    }

    private func signIn(_ gatehouse: TestGatehouse, password: String = "quiet-otter-123") async throws -> (Browser, Int) {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let status = try await browser.post("/auth/sign-in", [("email", email), ("password", password)]).status
        return (browser, status)
    }

    private func change(_ browser: Browser, current: String, new: String) async throws -> TestResponse {
        _ = try await browser.get("/account/security")
        return try await browser.post("/account/security/password", [("current_password", current), ("new_password", new)])
    }

    @Test func thisBrowserStaysSignedInAndEveryOtherSessionEnds() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let laptop = try await account(gatehouse)
        let (phone, phoneStatus) = try await signIn(gatehouse)
        #expect(phoneStatus == 303)

        let page = try await laptop.get("/account/security")
        #expect(page.status == 200)
        #expect(page.text.contains("<title>Security · Gatehouse</title>"))
        #expect(page.text.contains("Change password"))

        let changed = try await change(laptop, current: "quiet-otter-123", new: "brand-new-pass")
        #expect(changed.status == 303)
        #expect(changed.header("Location") == "/account/security?notice=password-changed")
        #expect(try await laptop.get("/account", follow: false).status == 200)
        let other = try await phone.get("/account", follow: false)
        #expect(other.status == 303)
        #expect(other.header("Location")?.hasPrefix("/auth/sign-in") == true)
        let list = try await laptop.get("/account/sessions")
        #expect(list.text.components(separatedBy: "data-session=").count == 2, "only this browser is listed")

        // The session behind this browser was kept whole: it still renews after its hour is up.
        gatehouse.clock.advance(2 * 3600)
        #expect(try await laptop.get("/account", follow: false).status == 200)

        #expect(try await signIn(gatehouse).1 == 401)
        #expect(try await signIn(gatehouse, password: "brand-new-pass").1 == 303)
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("password.changed"))
        await gatehouse.stop()
    }

    @Test func aWrongCurrentPasswordIsRefusedAndAThrottledOneReadsTheSame() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse)
        let short = try await change(browser, current: "quiet-otter-123", new: "short")
        #expect(short.status == 422)
        #expect(short.text.contains("Use at least 8 characters."))

        var wrongAnswers: [String] = []
        for attempt in 0..<10 {
            let wrong = try await change(browser, current: "not-it-\(attempt)", new: "brand-new-pass")
            #expect(wrong.status == 422)
            #expect(wrong.text.contains("match your current one"))
            wrongAnswers.append(wrong.text)
        }
        // Ten failures lock the account for this source (as at sign-in): the right password now gets
        // exactly the wrong password's answer, and changes nothing.
        let throttled = try await change(browser, current: "quiet-otter-123", new: "brand-new-pass")
        #expect(throttled.status == 422)
        #expect(throttled.text == wrongAnswers[0])
        #expect(try await browser.get("/account", follow: false).status == 200)
        let reasons = try await gatehouse.database.auditEvents(subject: nil, limit: 100)
            .filter { $0.type == "password.change_failed" }
        #expect(reasons.count == 11)
        // From another source the account is not locked: the old password still works there.
        let elsewhere = gatehouse.browser(from: "127.0.0.2")
        _ = try await elsewhere.get("/auth/sign-in")
        #expect(try await elsewhere.post("/auth/sign-in", [("email", email), ("password", "quiet-otter-123")]).status == 303)
        await gatehouse.stop()
    }

    @Test func refusedWhileImpersonating() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await account(gatehouse)
        let userID = try #require(try await gatehouse.database.user(email: email)?.id)
        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/users/\(userID.rawValue)")
        let opened = try await staff.post("/_/users/\(userID.rawValue)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        _ = try await staff.get("/account")
        let refused = try await change(staff, current: "quiet-otter-123", new: "staff-chose-this")
        #expect(refused.status == 403)
        #expect(try await signIn(gatehouse).1 == 303)
        #expect(try await signIn(gatehouse, password: "staff-chose-this").1 == 401)
        await gatehouse.stop()
    }

    /// A sign-in by mailed code, in a new browser.
    private func codeSignIn(_ gatehouse: TestGatehouse, _ address: String) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let asked = try await browser.post("/auth/sign-in/code", [("email", address)])
        let location = try #require(asked.header("Location"))
        let otp = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "otp" }?.value)
        let code = try await gatehouse.latestCode(for: address)
        let done = try await browser.post("/auth/sign-in/code/verify", [("otp", otp), ("code", code), ("email", address)])
        #expect(done.header("Location") == "/account")
        return browser
    }

    /// A session is the only proof behind a first password, so it must be a recent sign-in: one
    /// left open (or taken) for longer asks for a new sign-in instead of giving itself a password.
    @Test func aFirstPasswordNeedsARecentSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let address = "no-password@example.com"
        let now = gatehouse.clock.now
        _ = try await gatehouse.database.insertUser(
            UserRecord(
                id: UserID("nopassword"), email: address, passwordHash: nil, verified: true, profile: Profile(),
                createdAt: now, updatedAt: now),
            verificationToken: nil)
        let stale = try await codeSignIn(gatehouse, address)
        gatehouse.clock.advance(16 * 60)
        let page = try await stale.get("/account/security")
        #expect(page.text.contains("Set a password"))
        #expect(page.text.contains("data-sign-in-again"), "the page asks for a new sign-in")
        #expect(!page.text.contains(#"action="/account/security/password""#), "in place of the form")
        // Posting anyway (a script, an old tab) is refused by the owner, and nothing is set.
        let refused = try await stale.post("/account/security/password", [("new_password", "thief-chose-this-1")])
        #expect(refused.status == 403)
        #expect(refused.text.contains("sign in again first"))
        #expect(try await gatehouse.database.user(email: address)?.passwordHash == nil)
        #expect(try await stale.get("/account", follow: false).status == 200, "still signed in")

        // "Sign in again" signs out and comes back to the form through the sign-in page.
        let out = try await stale.post(
            "/auth/sign-out", [("redirect", "/auth/sign-in?redirect=%2Faccount%2Fsecurity&email=no-password%40example.com")])
        #expect(out.header("Location") == "/auth/sign-in?redirect=%2Faccount%2Fsecurity&email=no-password%40example.com")
        let fresh = try await codeSignIn(gatehouse, address)
        let form = try await fresh.get("/account/security")
        #expect(form.text.contains(#"action="/account/security/password""#) && !form.text.contains("data-sign-in-again"))
        let set = try await fresh.post("/account/security/password", [("new_password", "owner-chose-this-1")])
        #expect(set.header("Location") == "/account/security?notice=first-password-set")
        #expect(try await gatehouse.database.user(email: address)?.passwordHash != nil)
        await gatehouse.stop()
    }

    @Test func signedOutVisitorsAreSentToSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let page = try await gatehouse.browser().get("/account/security", follow: false)
        #expect(page.status == 303)
        #expect(page.header("Location") == "/auth/sign-in?redirect=%2Faccount%2Fsecurity")
        await gatehouse.stop()
    }
}
