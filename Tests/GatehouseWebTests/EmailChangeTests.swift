import AuthCore
import Foundation
import HTTPTestClient
import PocketBaseTestSupport
import TestScope
import Testing

/// Issue 10, item 2: a signed-in person moves the account to a new address, confirmed from it.
@Suite(.stopsWhatItStarts) struct EmailChangeTests {
    private static let password = "quiet-otter-123"
    private static let refusedPassword = "That password isn&#39;t right."

    /// A new account (verification off), signed in in a fresh browser.
    private func account(_ gatehouse: TestGatehouse, _ email: String, agent: String = "Firefox/130.0") async throws -> Browser {
        let signUp = gatehouse.browser()
        _ = try await signUp.get("/auth/sign-up")
        _ = try await signUp.post("/auth/sign-up", [("email", email), ("password", Self.password)])
        return try await signedIn(gatehouse, email, agent: agent)
    }

    private func signedIn(_ gatehouse: TestGatehouse, _ email: String, agent: String = "Firefox/130.0") async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post(
            "/auth/sign-in", [("email", email), ("password", Self.password)], headers: [("User-Agent", agent)])
        guard response.status == 303, response.header("Location") == "/account" else {
            throw TestFailure("sign-in as \(email) answered \(response.status)")
        }
        return browser
    }

    private func requestChange(_ browser: Browser, to email: String, password: String = password) async throws -> TestResponse {
        _ = try await browser.get("/account/email")
        return try await browser.post("/account/email", [("email", email), ("password", password)])
    }

    /// The path of the newest confirmation link mailed to `email`.
    private func confirmationPath(_ gatehouse: TestGatehouse, to email: String) async throws -> String {
        let link = try #require(
            try await gatehouse.mails(to: email).compactMap { $0["link"] as? String }.first {
                $0.contains("/auth/confirm-email?token=")
            })
        let url = try #require(URLComponents(string: link))
        return url.path + "?" + (url.query ?? "")
    }

    private func token(in path: String) -> String {
        String(path.split(separator: "=", maxSplits: 1).last ?? "")
    }

    /// Opens the link, types the account's password and presses the button, as the owner would.
    private func confirm(_ browser: Browser, _ path: String) async throws -> TestResponse {
        let page = try await browser.get(path)
        #expect(page.status == 200)
        return try await browser.post("/auth/confirm-email", [("token", token(in: path)), ("password", Self.password)])
    }

    private func signInStatus(_ gatehouse: TestGatehouse, _ email: String) async throws -> Int {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        return try await browser.post("/auth/sign-in", [("email", email), ("password", Self.password)]).status
    }

    private func eventTypes(_ gatehouse: TestGatehouse) async throws -> [String] {
        try await gatehouse.database.auditEvents(subject: nil, limit: 200).map(\.type)
    }

    @Test func theChangeIsConfirmedFromTheNewAddressThenOnlyTheNewAddressSignsIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse, "old@example.com")
        #expect(try await browser.get("/account").text.contains("href=\"/account/email\""))

        let requested = try await requestChange(browser, to: "New@Example.com")
        #expect(requested.status == 303)
        #expect(requested.header("Location") == "/account?notice=email-change-requested")
        #expect(try await gatehouse.database.user(email: "old@example.com") != nil, "nothing changes before confirmation")

        let notice = try #require(try await gatehouse.mails(to: "old@example.com").first)
        #expect(notice["subject"] as? String == "Your Gatehouse email address is being changed")
        let noticeText = try #require(notice["text"] as? String)
        #expect(noticeText.contains("N…@Example.com"))
        #expect(!noticeText.contains("New@Example.com"), "the old mailbox sees the new address masked")
        #expect(((notice["link"] as? String) ?? "").isEmpty)

        let path = try await confirmationPath(gatehouse, to: "new@example.com")
        // Opening the link (a mail scanner does) changes nothing: only the button does.
        let page = try await gatehouse.browser().get(path)
        #expect(page.status == 200)
        #expect(page.text.contains("Confirm new email"))
        #expect(page.text.contains("name=\"password\""), "the link alone never moves an account: the password again")
        #expect(try await gatehouse.database.user(email: "old@example.com") != nil)

        let confirmed = try await confirm(browser, path)
        #expect(confirmed.status == 303)
        #expect(confirmed.header("Location") == "/account?notice=email-changed")
        let accountPage = try await browser.get("/account")
        #expect(accountPage.status == 200)
        #expect(accountPage.text.contains("New@Example.com"))
        let user = try #require(try await gatehouse.database.user(email: "new@example.com"))
        #expect(user.verified)
        #expect(try await gatehouse.database.user(email: "old@example.com") == nil)

        #expect(try await signInStatus(gatehouse, "old@example.com") == 401)
        #expect(try await signInStatus(gatehouse, "new@example.com") == 303)
        let types = try await eventTypes(gatehouse)
        #expect(types.contains("email_change.requested") && types.contains("email_change.confirmed"))
        await gatehouse.stop()
    }

    @Test func aWrongPasswordIsRefusedLikeSignInAndAThrottledTryReadsTheSame() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse, "guarded@example.com")

        let wrong = try await requestChange(browser, to: "elsewhere@example.com", password: "not-the-password")
        #expect(wrong.status == 401)
        #expect(wrong.text.contains(Self.refusedPassword))
        #expect(wrong.text.contains("value=\"elsewhere@example.com\""), "the address is kept")
        #expect(try await gatehouse.mails(to: "elsewhere@example.com").isEmpty)
        #expect(try await gatehouse.mails(to: "guarded@example.com").isEmpty, "no notice for a refused request")

        // Enough failures for a back-off of half a minute: then even the right password reads as wrong.
        for _ in 0..<9 { _ = try await requestChange(browser, to: "elsewhere@example.com", password: "not-the-password") }
        let throttled = try await requestChange(browser, to: "elsewhere@example.com")
        #expect(throttled.status == wrong.status)
        #expect(throttled.text.contains(Self.refusedPassword))
        #expect(try await gatehouse.mails(to: "elsewhere@example.com").isEmpty)
        let reasons = try await gatehouse.database.auditEvents(subject: nil, limit: 50)
            .filter { $0.type == "email_change.failed" }.compactMap { $0.data["reason"] }
        #expect(reasons.contains(.string("locked")) && reasons.contains(.string("invalid_credentials")))
        await gatehouse.stop()
    }

    @Test func aBadAddressIsNamedOnItsFieldWithTheInputKept() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse, "typo@example.com")
        let bad = try await requestChange(browser, to: "not-an-address")
        #expect(bad.status == 422)
        #expect(bad.text.contains("Enter a valid email address."))
        #expect(bad.text.contains("value=\"not-an-address\""))
        let same = try await requestChange(browser, to: "TYPO@example.com")
        #expect(same.status == 422)
        #expect(same.text.contains("That is already your email address."))
        #expect(try await gatehouse.mails(to: "typo@example.com").isEmpty)
        await gatehouse.stop()
    }

    @Test func aTakenAddressInAnyLetterCaseAnswersLikeAFreeOneAndChangesNothing() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await account(gatehouse, "taken@example.com")
        let browser = try await account(gatehouse, "mover@example.com")

        let free = try await requestChange(browser, to: "free@example.com")
        let taken = try await requestChange(browser, to: "TAKEN@Example.COM")
        #expect(taken.status == free.status)
        #expect(taken.header("Location") == free.header("Location"))
        #expect(taken.text == free.text)

        // The owner of the taken address is told, with no link; the mover's old address gets the
        // same notice both times, so it learns nothing either.
        let toTaken = try await gatehouse.mails(to: "taken@example.com")
        let note = try #require(toTaken.first)
        #expect(toTaken.count == 1)
        #expect(note["subject"] as? String == "Someone tried to move a Gatehouse account to your address")
        #expect(((note["link"] as? String) ?? "").isEmpty)
        let notices = try await gatehouse.mails(to: "mover@example.com").compactMap { $0["subject"] as? String }
        #expect(notices == Array(repeating: "Your Gatehouse email address is being changed", count: 2))

        #expect(try await gatehouse.database.user(email: "mover@example.com") != nil)
        #expect(try await gatehouse.database.user(email: "taken@example.com") != nil)
        await gatehouse.stop()
    }

    @Test func aLinkWorksOnceAndANewerRequestReplacesIt() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse, "once@example.com")
        _ = try await requestChange(browser, to: "first@example.com")
        let first = try await confirmationPath(gatehouse, to: "first@example.com")
        _ = try await requestChange(browser, to: "second@example.com")
        let second = try await confirmationPath(gatehouse, to: "second@example.com")

        let superseded = try await confirm(gatehouse.browser(), first)
        #expect(superseded.status == 400)
        #expect(superseded.text.contains("This link can&#39;t be used"))
        #expect(try await gatehouse.database.user(email: "once@example.com") != nil)

        let opener = gatehouse.browser()
        #expect(try await confirm(opener, second).status == 200)
        let again = try await opener.post("/auth/confirm-email", [("token", token(in: second)), ("password", Self.password)])
        #expect(again.status == 400)
        #expect(try await gatehouse.database.user(email: "second@example.com") != nil)
        #expect(try await eventTypes(gatehouse).filter { $0 == "email_change.failed" }.count == 2)
        await gatehouse.stop()
    }

    @Test func anExpiredLinkIsRefused() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await account(gatehouse, "slow@example.com")
        _ = try await requestChange(browser, to: "later@example.com")
        let path = try await confirmationPath(gatehouse, to: "later@example.com")
        gatehouse.clock.advance(25 * 3600)
        let late = try await confirm(gatehouse.browser(), path)
        #expect(late.status == 400)
        #expect(try await gatehouse.database.user(email: "slow@example.com") != nil)
        #expect(try await gatehouse.database.user(email: "later@example.com") == nil)
        await gatehouse.stop()
    }

    @Test func anotherAccountsLinkChangesThatAccountOnlyNeverTheSignedInOne() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let alice = try await account(gatehouse, "alice@example.com")
        let bob = try await account(gatehouse, "bob@example.com")
        _ = try await requestChange(alice, to: "alice-new@example.com")
        _ = try await requestChange(bob, to: "bob-new@example.com")

        // Bob's browser confirms Alice's link: Alice's account moves, Bob's does not.
        let confirmed = try await confirm(bob, try await confirmationPath(gatehouse, to: "alice-new@example.com"))
        #expect(confirmed.status == 200, "a page, not a new session for Bob's browser")
        #expect(try await gatehouse.database.user(email: "alice-new@example.com") != nil)
        #expect(try await gatehouse.database.user(email: "bob@example.com") != nil)
        #expect(try await bob.get("/account", follow: false).status == 200, "Bob stays signed in as Bob")
        #expect(try await bob.get("/account").text.contains("bob@example.com"))
        #expect(try await alice.get("/account", follow: false).status == 303, "Alice's sessions ended")

        // Bob's own change is still his to confirm.
        #expect(try await confirm(bob, try await confirmationPath(gatehouse, to: "bob-new@example.com")).status == 303)
        #expect(try await bob.get("/account").text.contains("bob-new@example.com"))
        await gatehouse.stop()
    }

    @Test func confirmingWhileSignedInKeepsThisBrowserAndSignsOutTheOthers() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let laptop = try await account(gatehouse, "devices@example.com", agent: "Mozilla/5.0 (Macintosh) Firefox/130.0")
        let phone = try await signedIn(gatehouse, "devices@example.com", agent: "Mozilla/5.0 (iPhone) Safari/605.1")
        _ = try await requestChange(laptop, to: "moved@example.com")
        #expect(try await confirm(laptop, try await confirmationPath(gatehouse, to: "moved@example.com")).status == 303)
        #expect(try await laptop.get("/account", follow: false).status == 200)
        #expect(try await phone.get("/account", follow: false).status == 303)
        let sessions = try await laptop.get("/account/sessions")
        #expect(sessions.text.components(separatedBy: "This device").count == 2)
        #expect(!sessions.text.contains("Safari on iPhone"))
        await gatehouse.stop()
    }

    @Test func confirmingFromABrowserNotSignedInSignsTheAccountOutEverywhere() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let laptop = try await account(gatehouse, "mailer@example.com")
        _ = try await requestChange(laptop, to: "inbox@example.com")
        let confirmed = try await confirm(gatehouse.browser(), try await confirmationPath(gatehouse, to: "inbox@example.com"))
        #expect(confirmed.status == 200)
        #expect(confirmed.text.contains("Sign in with inbox@example.com"))
        #expect(try await laptop.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }

    @Test func changingTheEmailIsRefusedWhileImpersonating() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let owner = try await account(gatehouse, "held@example.com")
        let id = try #require(try await gatehouse.database.user(email: "held@example.com")?.id.rawValue)
        _ = try await requestChange(owner, to: "owner-choice@example.com")
        let path = try await confirmationPath(gatehouse, to: "owner-choice@example.com")

        let staff = try await gatehouse.staffBrowser()
        let opened = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        let request = try await requestChange(staff, to: "staff-choice@example.com")
        #expect(request.status == 403)
        #expect(try await gatehouse.mails(to: "staff-choice@example.com").isEmpty)
        _ = try await staff.get(path)
        let confirm = try await staff.post("/auth/confirm-email", [("token", token(in: path)), ("password", Self.password)])
        #expect(confirm.status == 403)
        #expect(try await gatehouse.database.user(email: "held@example.com") != nil)
        await gatehouse.stop()
    }

    @Test func theConsoleSetsTheEmailDirectlyAndNamesATakenAddressOnTheForm() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await account(gatehouse, "other@example.com")
        let user = try await account(gatehouse, "support-me@example.com")
        let id = try #require(try await gatehouse.database.user(email: "support-me@example.com")?.id.rawValue)
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(id)")
        #expect(page.text.contains("action=\"/_/users/\(id)/email\""))

        let taken = try await staff.post("/_/users/\(id)/email", [("email", "OTHER@example.com")])
        #expect(taken.status == 422)
        #expect(taken.text.contains("Another account already has this address."))
        #expect(taken.text.contains("value=\"OTHER@example.com\""))

        let set = try await staff.post("/_/users/\(id)/email", [("email", "supported@example.com")])
        #expect(set.status == 303)
        #expect(set.header("Location") == "/_/users/\(id)?notice=email-set")
        #expect(try await gatehouse.database.user(email: "supported@example.com")?.id.rawValue == id)
        #expect(try await user.get("/account", follow: false).status == 303, "the user's sessions ended")
        let events = try await gatehouse.database.auditEvents(subject: id, limit: 50).filter { $0.actor != id }
        #expect(events.map(\.type) == ["admin.user.updated"], "one event for the act, none for the refusal")
        #expect(events.first?.data["fields"] == .array(["email"]))
        await gatehouse.stop()
    }

    /// On PocketBase the confirmation page asks for the password (the backend needs it), and the
    /// confirming browser stays signed in on a new PocketBase token while the others are signed out.
    @Test func onPocketBaseTheConfirmationAsksForThePasswordAndKeepsThisBrowser() async throws {
        try await ProxyGatehouse.run(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            pocketBase, gatehouse in
            let old = "pb-old-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let new = "pb-new-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            _ = try await gatehouse.remote.admin.createUser(NewUser(email: old, password: Self.password, verified: true))
            var browsers: [Browser] = []
            for _ in 0..<2 {
                let browser = Browser(port: gatehouse.port)
                _ = try await browser.get("/auth/sign-in")
                #expect(try await browser.post("/auth/sign-in", [("email", old), ("password", Self.password)]).status == 303)
                browsers.append(browser)
            }
            let (laptop, phone) = (browsers[0], browsers[1])
            #expect(try await requestChange(laptop, to: new).header("Location") == "/account?notice=email-change-requested")

            let link = try await pocketBase.smtp.waitForMatch(
                to: new, pattern: #"href="http://127\.0\.0\.1:\#(gatehouse.port)(/auth/confirm-email\?token=[^"]+)""#)
            let page = try await laptop.get(link)
            #expect(page.text.contains("name=\"password\""))
            let wrong = try await laptop.post(
                "/auth/confirm-email", [("token", token(in: link)), ("password", "wrong password 1")])
            #expect(wrong.status == 401)
            #expect(wrong.text.contains(Self.refusedPassword))
            let confirmed = try await laptop.post(
                "/auth/confirm-email", [("token", token(in: link)), ("password", Self.password)])
            #expect(confirmed.header("Location") == "/account?notice=email-changed")
            #expect(try await laptop.get("/account").text.contains(new))
            #expect(try await phone.get("/account", follow: false).status == 303)
        }
    }
}
