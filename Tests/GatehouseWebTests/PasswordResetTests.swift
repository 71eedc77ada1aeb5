import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 10, item 1: "Forgot password?" — the mailed link (and code), used once, within 30 minutes,
/// for its own account only; every old session ends and the person is signed in afresh.
@Suite(.stopsWhatItStarts) struct PasswordResetTests {
    /// Signs `email` up with "quiet-otter-123", verifies it by code and returns the signed-in browser.
    private func account(_ gatehouse: TestGatehouse, _ email: String) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")])
        if gatehouse.verification == .code {
            _ = try await browser.get("/auth/verify?email=" + escaped(email))
            let verified = try await browser.post(
                "/auth/verify", [("email", email), ("code", try await gatehouse.latestCode(for: email))])
            #expect(verified.status == 303)
        }
        #expect(try await browser.get("/account", follow: false).status == 200)
        return browser
    }

    private func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Asks for a reset from `browser` and returns the answer.
    @discardableResult
    private func requestReset(_ browser: Browser, _ email: String) async throws -> TestResponse {
        _ = try await browser.get("/auth/forgot-password")
        return try await browser.post("/auth/forgot-password", [("email", email)])
    }

    /// The newest reset mail to `email`: the link's path and query, and the code.
    private func resetMail(_ gatehouse: TestGatehouse, _ email: String) async throws -> (path: String, code: String?) {
        let mails = try await gatehouse.mails(to: email).filter { ($0["subject"] as? String) == "Reset your Gatehouse password" }
        let mail = try #require(mails.first)
        let link = try #require(mail["link"] as? String)
        let path =
            try #require(URLComponents(string: link)).percentEncodedPath + "?"
            + (URLComponents(string: link)?.percentEncodedQuery ?? "")
        return (path, mail["code"] as? String)
    }

    private func resetMailCount(_ gatehouse: TestGatehouse, _ email: String) async throws -> Int {
        try await gatehouse.mails(to: email).filter { ($0["subject"] as? String) == "Reset your Gatehouse password" }.count
    }

    /// Signs in a fresh browser; the status of the answer (303 signed in, 401 refused).
    private func signInStatus(_ gatehouse: TestGatehouse, _ email: String, _ password: String) async throws -> Int {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        return try await browser.post("/auth/sign-in", [("email", email), ("password", password)]).status
    }

    private func hiddenToken(in page: String) -> String? {
        guard let range = page.range(of: #"name="token" value="([^"]+)""#, options: .regularExpression) else { return nil }
        return page[range].split(separator: "\"").dropFirst(3).first.map(String.init)
    }

    @Test func theLinkSetsANewPasswordSignsInAfreshAndEndsEveryOldSession() async throws {
        let gatehouse = try await TestGatehouse()
        let laptop = try await account(gatehouse, "forgot@example.com")
        let phone = gatehouse.browser()
        _ = try await phone.get("/auth/sign-in")
        #expect(
            try await phone.post("/auth/sign-in", [("email", "forgot@example.com"), ("password", "quiet-otter-123")]).status
                == 303)

        let visitor = gatehouse.browser()
        let signIn = try await visitor.get("/auth/sign-in")
        #expect(signIn.text.contains(#"href="/auth/forgot-password">Forgot password?"#))
        let asked = try await requestReset(visitor, "forgot@example.com")
        #expect(asked.status == 303)
        #expect(asked.header("Location") == "/auth/reset-password?email=forgot%40example.com")
        let checkMail = try await visitor.get(try #require(asked.header("Location")))
        #expect(checkMail.text.contains("Check your email"))

        let mail = try await resetMail(gatehouse, "forgot@example.com")
        #expect(mail.path.hasPrefix("/auth/reset-password?token="))
        #expect(mail.code?.count == 6)
        // Opening the link (a mail scanner, then the person) spends nothing.
        _ = try await gatehouse.browser().get(mail.path)
        let form = try await visitor.get(mail.path)
        #expect(form.status == 200)
        #expect(form.text.contains("Choose a new password"))
        let token = try #require(hiddenToken(in: form.text))

        let short = try await visitor.post("/auth/reset-password", [("token", token), ("password", "short")])
        #expect(short.status == 422)
        #expect(short.text.contains("Use at least 8 characters."))
        #expect(hiddenToken(in: short.text) == token, "the token stays in the form")

        let done = try await visitor.post("/auth/reset-password", [("token", token), ("password", "new-password-456")])
        #expect(done.status == 303)
        #expect(done.header("Location") == "/account?notice=password-reset")
        #expect(try await visitor.get("/account", follow: false).status == 200)

        // Every old browser is signed out: back to the sign-in page.
        for old in [laptop, phone] {
            let page = try await old.get("/account", follow: false)
            #expect(page.status == 303)
            #expect(page.header("Location")?.hasPrefix("/auth/sign-in") == true)
        }
        #expect(try await signInStatus(gatehouse, "forgot@example.com", "quiet-otter-123") == 401)
        #expect(try await signInStatus(gatehouse, "forgot@example.com", "new-password-456") == 303)
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("password_reset.requested"))
        #expect(types.contains("password_reset.completed"))
        await gatehouse.stop()
    }

    @Test func theLinkWorksOnce() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "once@example.com")
        let visitor = gatehouse.browser()
        try await requestReset(visitor, "once@example.com")
        let mail = try await resetMail(gatehouse, "once@example.com")
        let token = try #require(hiddenToken(in: try await visitor.get(mail.path).text))
        #expect(try await visitor.post("/auth/reset-password", [("token", token), ("password", "first-new-pass")]).status == 303)

        // Opened again, the spent link says so before any form (issue 25, item 6), with the way to a new one.
        let other = gatehouse.browser()
        let reopened = try await other.get(mail.path)
        #expect(reopened.status == 400)
        #expect(reopened.text.contains("This reset link can"))
        #expect(reopened.text.contains("href=\"/auth/forgot-password\""))
        #expect(hiddenToken(in: reopened.text) == nil, "the spent link still shows the new-password form")
        // Posted anyway (an old tab), the spent token is refused too.
        _ = try await other.get("/auth/forgot-password")
        let again = try await other.post("/auth/reset-password", [("token", token), ("password", "second-new-pass")])
        #expect(again.status == 400)
        #expect(again.text.contains("This reset link can"))
        #expect(other.cookie("gh_session") == nil)
        #expect(try await signInStatus(gatehouse, "once@example.com", "first-new-pass") == 303)
        #expect(try await signInStatus(gatehouse, "once@example.com", "second-new-pass") == 401)
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.contains("password_reset.failed"))
        await gatehouse.stop()
    }

    @Test func anExpiredLinkIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "late@example.com")
        let visitor = gatehouse.browser()
        try await requestReset(visitor, "late@example.com")
        let mail = try await resetMail(gatehouse, "late@example.com")
        let token = try #require(hiddenToken(in: try await visitor.get(mail.path).text))
        gatehouse.clock.advance(31 * 60)
        let expired = try await gatehouse.browser().get(mail.path)
        #expect(expired.status == 400 && hiddenToken(in: expired.text) == nil)
        let late = try await visitor.post("/auth/reset-password", [("token", token), ("password", "new-password-456")])
        #expect(late.status == 400)
        #expect(try await signInStatus(gatehouse, "late@example.com", "quiet-otter-123") == 303)
        await gatehouse.stop()
    }

    @Test func aTokenResetsOnlyTheAccountItWasMailedFor() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "alice@example.com")
        let bob = try await account(gatehouse, "bob@example.com")
        try await requestReset(gatehouse.browser(), "alice@example.com")
        let alices = try await resetMail(gatehouse, "alice@example.com")

        // Alice's code does not open Bob's account.
        _ = try await bob.get("/auth/reset-password?email=bob%40example.com")
        let code = try await bob.post(
            "/auth/reset-password/code", [("email", "bob@example.com"), ("code", try #require(alices.code))])
        #expect(code.status == 422)
        #expect(hiddenToken(in: code.text) == nil)

        // Alice's link, used from Bob's browser, sets Alice's password, never Bob's.
        let token = try #require(hiddenToken(in: try await bob.get(alices.path).text))
        #expect(try await bob.post("/auth/reset-password", [("token", token), ("password", "bob-chose-this")]).status == 303)
        #expect(try await signInStatus(gatehouse, "bob@example.com", "quiet-otter-123") == 303)
        #expect(try await signInStatus(gatehouse, "bob@example.com", "bob-chose-this") == 401)
        #expect(try await signInStatus(gatehouse, "alice@example.com", "bob-chose-this") == 303)
        await gatehouse.stop()
    }

    @Test func theMailedCodeTradesForTheFormAndSpendsTheLink() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "code@example.com")
        let visitor = gatehouse.browser()
        let asked = try await requestReset(visitor, "code@example.com")
        let page = try await visitor.get(try #require(asked.header("Location")))
        #expect(page.text.contains(#"action="/auth/reset-password/code""#))
        let mail = try await resetMail(gatehouse, "code@example.com")

        let form = try await visitor.post(
            "/auth/reset-password/code", [("email", "code@example.com"), ("code", try #require(mail.code))])
        #expect(form.status == 200)
        let token = try #require(hiddenToken(in: form.text))
        #expect(try await visitor.post("/auth/reset-password", [("token", token), ("password", "by-code-pass")]).status == 303)
        #expect(try await visitor.get("/account", follow: false).status == 200)

        // The code is spent, and the mailed link died with it.
        let other = gatehouse.browser()
        _ = try await other.get("/auth/reset-password?email=code%40example.com")
        #expect(
            try await other.post("/auth/reset-password/code", [("email", "code@example.com"), ("code", mail.code!)]).status == 422
        )
        let deadLink = try await other.get(mail.path)
        #expect(deadLink.status == 400 && deadLink.text.contains("This reset link can"))
        #expect(hiddenToken(in: deadLink.text) == nil)
        await gatehouse.stop()
    }

    @Test func theSixthTryIsRefusedEvenWithTheRightCode() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "guess@example.com")
        let visitor = gatehouse.browser()
        try await requestReset(visitor, "guess@example.com")
        let code = try #require(try await resetMail(gatehouse, "guess@example.com").code)
        let wrong = code == "000000" ? "111111" : "000000"
        _ = try await visitor.get("/auth/reset-password?email=guess%40example.com")
        var answers: [String] = []
        for _ in 0..<5 {
            let response = try await visitor.post("/auth/reset-password/code", [("email", "guess@example.com"), ("code", wrong)])
            #expect(response.status == 422)
            answers.append(response.text)
        }
        let right = try await visitor.post("/auth/reset-password/code", [("email", "guess@example.com"), ("code", code)])
        #expect(right.status == 422)
        #expect(right.text.contains("That code is not right or is no longer valid."))
        #expect(right.text == answers[0], "a dead code reads exactly like a wrong one")
        #expect(hiddenToken(in: right.text) == nil)
        await gatehouse.stop()
    }

    @Test func anUnknownAddressIsAnsweredLikeAKnownOneButGetsNoMail() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "first-person@example.com")
        let visitor = gatehouse.browser()
        let known = try await requestReset(visitor, "first-person@example.com")
        let unknown = try await requestReset(visitor, "other-person@example.com")
        func same(_ text: String?) -> String? {
            text?.replacingOccurrences(of: "first-person", with: "X").replacingOccurrences(of: "other-person", with: "X")
        }
        #expect(known.status == 303 && unknown.status == 303)
        #expect(same(known.header("Location")) == same(unknown.header("Location")))
        let knownPage = try await visitor.get(try #require(known.header("Location")))
        let unknownPage = try await visitor.get(try #require(unknown.header("Location")))
        #expect(knownPage.status == unknownPage.status)
        #expect(same(knownPage.text) == same(unknownPage.text))
        #expect(try await resetMailCount(gatehouse, "first-person@example.com") == 1)
        #expect(try await gatehouse.mails(to: "other-person@example.com").isEmpty)
        await gatehouse.stop()
    }

    @Test func throttledRequestsAreAnsweredLikeOthersWithoutAMail() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "many@example.com")
        let visitor = gatehouse.browser()
        var answers: [(Int, String?)] = []
        for _ in 0..<4 {
            let response = try await requestReset(visitor, "many@example.com")
            answers.append((response.status, response.header("Location")))
        }
        #expect(answers.allSatisfy { $0.0 == 303 && $0.1 == "/auth/reset-password?email=many%40example.com" })
        #expect(try await resetMailCount(gatehouse, "many@example.com") == 3, "the fourth ask in 15 minutes sends nothing")
        await gatehouse.stop()
    }

    @Test func linkModeOffersNoCode() async throws {
        let gatehouse = try await TestGatehouse(verification: .link)
        let visitor = gatehouse.browser()
        let asked = try await requestReset(visitor, "someone@example.com")
        let page = try await visitor.get(try #require(asked.header("Location")))
        #expect(page.text.contains("Check your email"))
        #expect(!page.text.contains("/auth/reset-password/code"))
        let code = try await visitor.post("/auth/reset-password/code", [("email", "someone@example.com"), ("code", "123456")])
        #expect(code.status == 501)
        await gatehouse.stop()
    }

    @Test func badInputIsNamedOnTheForm() async throws {
        let gatehouse = try await TestGatehouse()
        let visitor = gatehouse.browser()
        let bad = try await requestReset(visitor, "not-an-address")
        #expect(bad.status == 422)
        #expect(bad.text.contains("Enter the email address of your account."))
        #expect(bad.text.contains(#"value="not-an-address""#))
        _ = try await visitor.get("/auth/reset-password?email=x%40example.com")
        let code = try await visitor.post("/auth/reset-password/code", [("email", "x@example.com"), ("code", "12ab")])
        #expect(code.status == 422)
        #expect(code.text.contains("Enter the 6-digit code from the email."))
        let noToken = try await visitor.post("/auth/reset-password", [("token", ""), ("password", "new-password-456")])
        #expect(noToken.status == 400)
        let madeUp = try await visitor.post("/auth/reset-password", [("token", "made-up"), ("password", "new-password-456")])
        #expect(madeUp.status == 400)
        await gatehouse.stop()
    }

    @Test func staffSendAResetFromTheConsole() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await account(gatehouse, "helped@example.com")
        let userID = try #require(try await gatehouse.database.user(email: "helped@example.com")?.id)
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(userID.rawValue)")
        #expect(page.text.contains("Send password reset"))
        let sent = try await staff.post("/_/users/\(userID.rawValue)/password-reset", [])
        #expect(sent.status == 303)
        #expect(sent.header("Location") == "/_/users/\(userID.rawValue)?notice=password-reset-sent")
        #expect(try await resetMailCount(gatehouse, "helped@example.com") == 1)
        let events = try await gatehouse.database.auditEvents(subject: userID.rawValue, limit: 20)
        let event = try #require(events.first { $0.type == "password_reset.requested" })
        #expect(event.actor != nil && event.actor != userID.rawValue)
        await gatehouse.stop()
    }
}
