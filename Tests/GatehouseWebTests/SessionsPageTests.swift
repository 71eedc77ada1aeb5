import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 10, item 6: the person sees where they are signed in and signs out of one, the others, or all.
@Suite(.stopsWhatItStarts) struct SessionsPageTests {
    private func signIn(_ gatehouse: TestGatehouse, agent: String) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post(
            "/auth/sign-in", [("email", "many@example.com"), ("password", "quiet-otter-123")], headers: [("User-Agent", agent)])
        #expect(response.status == 303 && response.header("Location") == "/account")
        return browser
    }

    private func signedUp(_ gatehouse: TestGatehouse) async throws {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", "many@example.com"), ("password", "quiet-otter-123")])
    }

    @Test func listsEachDeviceMarksThisOneAndSignsOutOneOthersOrAll() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await signedUp(gatehouse)
        let laptop = try await signIn(gatehouse, agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/130.0")
        let phone = try await signIn(gatehouse, agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/605.1")
        let desktop = try await signIn(gatehouse, agent: "Mozilla/5.0 (Windows NT 10.0) Chrome/131.0 Safari/537.36")

        let page = try await laptop.get("/account/sessions")
        #expect(page.status == 200)
        for device in ["Firefox on macOS", "Safari on iPhone", "Chrome on Windows"] {
            #expect(page.text.contains(device), "\(device) missing")
        }
        #expect(page.text.components(separatedBy: "This device").count == 2, "exactly one session is this one")
        let phoneRow = try #require(
            page.text.range(
                of:
                    #"data-session="(\d+)">\s*<span class="provider__icon"[^\n]*\n\s*<span class="provider__body">\s*<span class="provider__name">Safari on iPhone"#,
                options: .regularExpression))
        let phoneID = String(page.text[phoneRow].split(separator: "\"")[1])

        // One: the phone is signed out, the others are not.
        let one = try await laptop.post("/account/sessions/\(phoneID)/sign-out", [])
        #expect(one.header("Location") == "/account/sessions?notice=session-signed-out")
        #expect(try await phone.get("/account", follow: false).status == 303)
        #expect(try await desktop.get("/account", follow: false).status == 200)

        // Someone else's session id does nothing.
        _ = try await laptop.get("/account/sessions")
        #expect(try await laptop.post("/account/sessions/999999/sign-out", []).header("Location") == "/account/sessions")

        // Everywhere else: the desktop goes, the laptop stays.
        let others = try await laptop.post("/account/sessions/sign-out-others", [])
        #expect(others.header("Location") == "/account/sessions?notice=other-sessions-signed-out")
        #expect(try await desktop.get("/account", follow: false).status == 303)
        #expect(try await laptop.get("/account", follow: false).status == 200)

        // Everywhere: this one too, back to the sign-in page.
        let again = try await signIn(gatehouse, agent: "curl/8.0")
        _ = try await laptop.get("/account/sessions")
        let all = try await laptop.post("/account/sessions/sign-out-all", [])
        #expect(all.header("Location") == "/auth/sign-in?notice=signed-out-everywhere")
        #expect(try await laptop.get("/account", follow: false).status == 303)
        #expect(try await again.get("/account", follow: false).status == 303)
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 100).map(\.type)
        #expect(types.filter { $0 == "sessions.signed_out" }.count == 3)
        await gatehouse.stop()
    }

    @Test func signedOutVisitorsAreSentToSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let response = try await gatehouse.browser().get("/account/sessions", follow: false)
        #expect(response.status == 303)
        #expect(response.header("Location") == "/auth/sign-in?redirect=%2Faccount%2Fsessions")
        await gatehouse.stop()
    }
}
