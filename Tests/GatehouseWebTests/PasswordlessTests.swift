import AuthCore
import Foundation
import GatehouseWeb
import HTTPTestClient
import PocketBaseTestSupport
import Store
import TestScope
import Testing

/// Passwordless sign-in on the hosted pages: the mailed code and the magic link, their refusals,
/// and the flags that turn them off or let them create accounts.
@Suite(.stopsWhatItStarts) struct PasswordlessTests {
    /// An account made directly in the store (no sign-up mail in the mailbox).
    @discardableResult
    private func account(
        _ gatehouse: TestGatehouse, _ email: String, verified: Bool = true, password: String? = nil
    ) async throws -> UserRecord {
        let now = gatehouse.clock.now
        return try await gatehouse.database.insertUser(
            UserRecord(
                id: UserID("u" + UUID().uuidString.prefix(12).lowercased().filter(\.isLetter)), email: email,
                passwordHash: password, verified: verified, profile: Profile(), createdAt: now, updatedAt: now),
            verificationToken: nil, bySignUp: true)
    }

    /// Asks for a code from the sign-in page; returns the answer (a redirect to the code page).
    private func askForCode(_ browser: Browser, _ email: String) async throws -> TestResponse {
        _ = try await browser.get("/auth/sign-in")
        return try await browser.post("/auth/sign-in/code", [("email", email)])
    }

    /// The otp id the code page was reached with.
    private func otp(in response: TestResponse) throws -> String {
        let location = try #require(response.header("Location"))
        let items = URLComponents(string: location)?.queryItems ?? []
        return try #require(items.first { $0.name == "otp" }?.value)
    }

    private func submit(_ browser: Browser, otp: String, code: String, email: String) async throws -> TestResponse {
        try await browser.post("/auth/sign-in/code/verify", [("otp", otp), ("code", code), ("email", email)])
    }

    private func wrongCode(than code: String) -> String { code == "000000" ? "111111" : "000000" }

    /// Asks for a magic link in `browser`; returns the link's path and query from the mail.
    private func askForLink(_ gatehouse: TestGatehouse, _ browser: Browser, _ email: String) async throws -> String {
        _ = try await browser.get("/auth/sign-in")
        let answer = try await browser.post("/auth/sign-in/link", [("email", email)])
        #expect(answer.status == 200)
        #expect(answer.text.contains("Check your email"))
        let link = try #require(try await gatehouse.mails(to: email).first?["link"] as? String)
        let url = try #require(URLComponents(string: link))
        #expect(url.path == "/auth/magic")
        return url.path + "?" + (url.percentEncodedQuery ?? "")
    }

    private func signedInEmail(_ browser: Browser) async throws -> String? {
        let page = try await browser.get("/account", follow: false)
        return page.status == 200 ? page.text : nil
    }

    // MARK: Email code

    @Test func mailedCodeSignsInAndVerifiesTheAddress() async throws {
        let gatehouse = try await TestGatehouse()
        let user = try await account(gatehouse, "code@example.com", verified: false, password: "not-a-real-hash")
        let browser = gatehouse.browser()
        let asked = try await askForCode(browser, "code@example.com")
        #expect(asked.status == 303)
        let otp = try otp(in: asked)
        let page = try await browser.get(try #require(asked.header("Location")))
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"otp\" value=\"\(otp)\""), "the otp id travels in a hidden field")
        let mail = try #require(try await gatehouse.mails(to: "code@example.com").first)
        #expect((mail["subject"] as? String)?.contains("sign-in code") == true)
        let code = try await gatehouse.latestCode(for: "code@example.com")

        let right = try await submit(browser, otp: otp, code: code, email: "code@example.com")
        #expect(right.status == 303)
        #expect(right.header("Location") == "/account")
        #expect(try await signedInEmail(browser)?.contains("code@example.com") == true)
        let stored = try #require(try await gatehouse.database.user(id: user.id))
        #expect(stored.verified, "a right code proves the mailbox")
        #expect(stored.passwordHash == nil, "a password nobody tied to the mailbox is dropped")

        let events = try await gatehouse.database.auditEvents(subject: user.id.rawValue, limit: 10)
        #expect(events.contains { $0.type == "sign_in.completed" && $0.data["method"] == "email_code" })
        let requested = try await gatehouse.database.auditEvents(subject: nil, limit: 50)
        #expect(requested.contains { $0.type == "sign_in.code_requested" && $0.data["email"] == "code@example.com" })

        // Used once: the same code from another browser is refused.
        let replay = gatehouse.browser()
        _ = try await replay.get("/auth/sign-in")
        let again = try await submit(replay, otp: otp, code: code, email: "code@example.com")
        #expect(again.status == 422)
        #expect(replay.cookie("gh_session") == nil)
        await gatehouse.stop()
    }

    @Test func fiveWrongCodesKillTheCode() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "brute-code@example.com")
        let browser = gatehouse.browser()
        let otp = try otp(in: try await askForCode(browser, "brute-code@example.com"))
        let code = try await gatehouse.latestCode(for: "brute-code@example.com")
        for _ in 0..<5 {
            let wrong = try await submit(browser, otp: otp, code: wrongCode(than: code), email: "brute-code@example.com")
            #expect(wrong.status == 422)
            #expect(wrong.text.contains("That code is not right or is no longer valid."))
        }
        let right = try await submit(browser, otp: otp, code: code, email: "brute-code@example.com")
        #expect(right.status == 422)
        #expect(right.text.contains("That code is not right or is no longer valid."))
        #expect(browser.cookie("gh_session") == nil)
        await gatehouse.stop()
    }

    @Test func expiredCodeIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "late-code@example.com")
        let browser = gatehouse.browser()
        let otp = try otp(in: try await askForCode(browser, "late-code@example.com"))
        let code = try await gatehouse.latestCode(for: "late-code@example.com")
        gatehouse.clock.advance(11 * 60)
        let response = try await submit(browser, otp: otp, code: code, email: "late-code@example.com")
        #expect(response.status == 422)
        #expect(response.text.contains("That code is not right or is no longer valid."))
        #expect(browser.cookie("gh_session") == nil)
        await gatehouse.stop()
    }

    @Test func unknownAddressIsAnsweredAlikeAndGetsNoAccount() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "known@example.com")
        let known = try await askForCode(gatehouse.browser(), "known@example.com")
        let unknown = try await askForCode(gatehouse.browser(), "stranger@example.com")
        #expect(known.status == 303 && unknown.status == 303)
        let knownPage = try await gatehouse.browser().get(try #require(known.header("Location")))
        let unknownPage = try await gatehouse.browser().get(try #require(unknown.header("Location")))
        // The same page but for the address and the ids.
        func neutral(_ text: String) -> String {
            text.replacingOccurrences(of: #"value="[^"]*""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: "known@example.com", with: "X").replacingOccurrences(
                    of: "stranger@example.com", with: "X"
                )
                .replacingOccurrences(of: #"data-cooldown="\d+""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"in <span data-cooldown-count>\d+"#, with: "", options: .regularExpression)
        }
        #expect(neutral(knownPage.text) == neutral(unknownPage.text))
        #expect(try await gatehouse.mails(to: "stranger@example.com").isEmpty)

        // No code works for it, and no account appears.
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let guess = try await submit(browser, otp: try otp(in: unknown), code: "123456", email: "stranger@example.com")
        #expect(guess.status == 422)
        #expect(guess.text.contains("That code is not right or is no longer valid."))
        #expect(try await gatehouse.database.user(email: "stranger@example.com") == nil)
        await gatehouse.stop()
    }

    @Test func passwordlessSignUpCreatesAVerifiedAccount() async throws {
        let gatehouse = try await TestGatehouse(passwordlessSignUp: true)
        let browser = gatehouse.browser()
        let otp = try otp(in: try await askForCode(browser, "newcomer@example.com"))
        #expect(try await gatehouse.database.user(email: "newcomer@example.com") == nil, "no account before the code")
        let code = try await gatehouse.latestCode(for: "newcomer@example.com")
        let right = try await submit(browser, otp: otp, code: code, email: "newcomer@example.com")
        #expect(right.status == 303)
        #expect(try await signedInEmail(browser)?.contains("newcomer@example.com") == true)
        let created = try #require(try await gatehouse.database.user(email: "newcomer@example.com"))
        #expect(created.verified)
        #expect(created.passwordHash == nil)
        await gatehouse.stop()
    }

    @Test func resendHasACooldownAndReplacesTheCode() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "resend-code@example.com")
        let browser = gatehouse.browser()
        let first = try await askForCode(browser, "resend-code@example.com")
        let firstOTP = try otp(in: first)
        let firstCode = try await gatehouse.latestCode(for: "resend-code@example.com")
        _ = try await browser.get(try #require(first.header("Location")))

        let tooSoon = try await browser.post("/auth/sign-in/code", [("email", "resend-code@example.com"), ("otp", firstOTP)])
        #expect(tooSoon.status == 429)
        #expect(tooSoon.text.contains("Please wait"))
        #expect(tooSoon.text.contains("name=\"otp\" value=\"\(firstOTP)\""), "the code page stays usable")
        #expect(try await gatehouse.mails(to: "resend-code@example.com").count == 1)
        // The cool-down is per address, known or not.
        let stranger = try await askForCode(gatehouse.browser(), "resend-stranger@example.com")
        #expect(stranger.status == 303)
        #expect(try await askForCode(gatehouse.browser(), "resend-stranger@example.com").status == 429)

        gatehouse.clock.advance(61)
        let again = try await browser.post("/auth/sign-in/code", [("email", "resend-code@example.com"), ("otp", firstOTP)])
        #expect(again.status == 303)
        let secondOTP = try otp(in: again)
        #expect(secondOTP != firstOTP)
        let secondCode = try await gatehouse.latestCode(for: "resend-code@example.com")
        #expect(try await gatehouse.mails(to: "resend-code@example.com").count == 2)
        _ = try await browser.get(try #require(again.header("Location")))
        let old = try await submit(browser, otp: firstOTP, code: firstCode, email: "resend-code@example.com")
        #expect(old.status == 422, "a newer code kills the older one")
        let new = try await submit(browser, otp: secondOTP, code: secondCode, email: "resend-code@example.com")
        #expect(new.status == 303)
        await gatehouse.stop()
    }

    @Test func disabledAccountIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        let user = try await account(gatehouse, "off@example.com")
        let browser = gatehouse.browser()
        let otp = try otp(in: try await askForCode(browser, "off@example.com"))
        let code = try await gatehouse.latestCode(for: "off@example.com")
        let linkBrowser = gatehouse.browser()
        let link = try await askForLink(gatehouse, linkBrowser, "off@example.com")
        _ = try await gatehouse.database.updateUser(id: user.id) { $0.disabled = true }

        let byCode = try await submit(browser, otp: otp, code: code, email: "off@example.com")
        #expect(byCode.status == 422)
        #expect(browser.cookie("gh_session") == nil)
        let byLink = try await linkBrowser.get(link, follow: false)
        #expect(byLink.status == 400)
        #expect(
            byLink.text.contains("This sign-in link can&#39;t be used") || byLink.text.contains("This sign-in link can't be used")
        )
        #expect(linkBrowser.cookie("gh_session") == nil)

        // A disabled account is mailed nothing new.
        gatehouse.clock.advance(61)
        let before = try await gatehouse.mails(to: "off@example.com").count
        #expect(try await askForCode(gatehouse.browser(), "off@example.com").status == 303)
        #expect(try await gatehouse.mails(to: "off@example.com").count == before)
        await gatehouse.stop()
    }

    // MARK: Magic link

    @Test func magicLinkSignsInTheBrowserThatAsked() async throws {
        let gatehouse = try await TestGatehouse()
        let user = try await account(gatehouse, "magic@example.com")
        let browser = gatehouse.browser()
        let link = try await askForLink(gatehouse, browser, "magic@example.com")
        #expect(browser.cookie("gh_magic") != nil)
        let mail = try #require(try await gatehouse.mails(to: "magic@example.com").first)
        #expect(mail["subject"] as? String == "Sign in to Gatehouse")

        let opened = try await browser.get(link, follow: false)
        #expect(opened.status == 303)
        #expect(opened.header("Location") == "/account")
        #expect(try await signedInEmail(browser)?.contains("magic@example.com") == true)
        let events = try await gatehouse.database.auditEvents(subject: user.id.rawValue, limit: 10)
        #expect(events.contains { $0.type == "sign_in.completed" && $0.data["method"] == "magic_link" })

        // Used once: the same link again is refused, even in the same browser.
        let reused = try await gatehouse.browser().get(link, follow: false)
        #expect(reused.status == 400)
        #expect(reused.text.contains("was already used"))
        await gatehouse.stop()
    }

    /// Issue 49, item 7: a spent link says so and mails a new one from the same page.
    @Test func spentMagicLinkOffersANewOne() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "spent@example.com")
        let first = gatehouse.browser()
        let link = try await askForLink(gatehouse, first, "spent@example.com")
        #expect(try await first.get(link, follow: false).status == 303)

        let later = gatehouse.browser()
        let spent = try await later.get(link, follow: false)
        #expect(spent.status == 400)
        #expect(spent.text.contains("was already used"))
        #expect(spent.text.contains(#"action="/auth/sign-in/link""#))
        #expect(spent.text.contains("Email me a new link"))

        gatehouse.clock.advance(61)
        let asked = try await later.post("/auth/sign-in/link", [("email", "spent@example.com")])
        #expect(asked.text.contains("Check your email"))
        #expect(try await gatehouse.mails(to: "spent@example.com").count == 2)
        let fresh = try #require(try await gatehouse.mails(to: "spent@example.com").first?["link"] as? String)
        let url = try #require(URLComponents(string: fresh))
        let opened = try await later.get(url.path + "?" + (url.percentEncodedQuery ?? ""), follow: false)
        #expect(opened.status == 303, "the new link signs in the browser that asked from the spent link's page")
        await gatehouse.stop()
    }

    @Test func magicLinkElsewhereAsksFirstAndSpendsNothing() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "ada.lovelace@example.com")
        let asking = gatehouse.browser()
        let link = try await askForLink(gatehouse, asking, "ada.lovelace@example.com")

        // A mail scanner or another device: a question, nothing spent.
        let other = gatehouse.browser()
        let first = try await other.get(link, follow: false)
        #expect(first.status == 200)
        #expect(first.text.contains("Continue as a…@example.com?"))
        #expect(!first.text.contains("ada.lovelace"))
        #expect(other.cookie("gh_session") == nil)
        let second = try await other.get(link, follow: false)
        #expect(second.status == 200, "the first GET spent nothing")
        #expect(second.text.contains("Continue as a…@example.com?"))

        // The continue button needs the form's CSRF token.
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "t" }?.value)
        let forged = try await other.post("/auth/magic", [("t", token)], csrf: "forged")
        #expect(forged.status == 403)
        #expect(other.cookie("gh_session") == nil)

        let continued = try await other.post("/auth/magic", [("t", token)])
        #expect(continued.status == 303)
        #expect(try await signedInEmail(other)?.contains("ada.lovelace@example.com") == true)

        // Spent now, also for the browser that asked.
        let late = try await asking.get(link, follow: false)
        #expect(late.status == 400)
        #expect(asking.cookie("gh_session") == nil)
        await gatehouse.stop()
    }

    @Test func expiredMagicLinkIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        try await account(gatehouse, "late-link@example.com")
        let browser = gatehouse.browser()
        let link = try await askForLink(gatehouse, browser, "late-link@example.com")
        gatehouse.clock.advance(11 * 60)
        let opened = try await browser.get(link, follow: false)
        #expect(opened.status == 400)
        #expect(opened.text.contains("has expired, or was already used"))
        #expect(browser.cookie("gh_session") == nil)
        let made = try await gatehouse.browser().get("/auth/magic?t=" + String(repeating: "A", count: 43), follow: false)
        #expect(made.status == 400, "an unknown token reads the same")
        #expect(made.text.contains("has expired, or was already used"))
        await gatehouse.stop()
    }

    @Test func unknownAddressGetsNoLinkUnlessSignUpIsOn() async throws {
        let closed = try await TestGatehouse()
        let answer = try await {
            let browser = closed.browser()
            _ = try await browser.get("/auth/sign-in")
            return try await browser.post("/auth/sign-in/link", [("email", "nobody@example.com")])
        }()
        #expect(answer.status == 200)
        #expect(answer.text.contains("Check your email"))
        #expect(try await closed.mails(to: "nobody@example.com").isEmpty)
        await closed.stop()

        let open = try await TestGatehouse(passwordlessSignUp: true)
        let browser = open.browser()
        let link = try await askForLink(open, browser, "joiner@example.com")
        #expect(try await browser.get(link, follow: false).status == 303)
        let created = try #require(try await open.database.user(email: "joiner@example.com"))
        #expect(created.verified)
        await open.stop()
    }

    // MARK: Flags

    @Test func methodsTurnedOffAreHiddenAndRefused() async throws {
        let all = try await TestGatehouse()
        let page = try await all.browser().get("/auth/sign-in")
        #expect(page.text.contains("Email me a sign-in code"))
        #expect(page.text.contains("Email me a sign-in link"))
        #expect(page.text.contains("name=\"password\""))
        await all.stop()

        let passwordOnly = try await TestGatehouse(signInMethods: [.password])
        let browser = passwordOnly.browser()
        let plain = try await browser.get("/auth/sign-in")
        #expect(!plain.text.contains("Email me a sign-in code"))
        #expect(!plain.text.contains("Email me a sign-in link"))
        try await account(passwordOnly, "flag@example.com")
        #expect(try await browser.post("/auth/sign-in/code", [("email", "flag@example.com")]).status == 404)
        #expect(try await browser.post("/auth/sign-in/link", [("email", "flag@example.com")]).status == 404)
        #expect(try await passwordOnly.mails(to: "flag@example.com").isEmpty)
        await passwordOnly.stop()

        let codeOnly = try await TestGatehouse(signInMethods: [.emailCode])
        let codeBrowser = codeOnly.browser()
        let codePage = try await codeBrowser.get("/auth/sign-in")
        #expect(!codePage.text.contains("name=\"password\""))
        #expect(codePage.text.contains("Email me a sign-in code"))
        #expect(!codePage.text.contains("Email me a sign-in link"))
        let password = try await codeBrowser.post("/auth/sign-in", [("email", "x@example.com"), ("password", "whatever-1")])
        #expect(password.status == 403)
        #expect(password.text.contains("Signing in with a password is turned off here"))
        await codeOnly.stop()
    }

    @Test func pocketBaseOffersTheCodeButNoMagicLink() async throws {
        try await ProxyGatehouse.run(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            _, gatehouse in
            let page = try await Browser(port: gatehouse.port).get("/auth/sign-in")
            #expect(page.text.contains("Email me a sign-in code"))
            #expect(!page.text.contains("Email me a sign-in link"), "PocketBase has no magic links")
        }
    }
}
