import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Codes and links: wrong, expired, reused, brute-forced, resent.
@Suite(.stopsWhatItStarts) struct VerificationTests {
    /// Signs up `email` and returns the browser, sitting on the verify page.
    private func signUp(_ gatehouse: TestGatehouse, _ email: String) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let response = try await browser.post(
            "/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")],
            follow: true)
        #expect(response.status == 200)
        return browser
    }

    private func wrongCode(than code: String) -> String {
        code == "000000" ? "111111" : "000000"
    }

    @Test func wrongCodeIsRefusedAndTheRightOneStillWorks() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = try await signUp(gatehouse, "wrong@example.com")
        let code = try await gatehouse.latestCode(for: "wrong@example.com")
        let wrong = try await browser.post("/auth/verify", [("email", "wrong@example.com"), ("code", wrongCode(than: code))])
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("That code is not right"))
        let right = try await browser.post("/auth/verify", [("email", "wrong@example.com"), ("code", code)])
        #expect(right.status == 303)
        await gatehouse.stop()
    }

    @Test func fiveWrongTriesKillTheCode() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = try await signUp(gatehouse, "brute@example.com")
        let code = try await gatehouse.latestCode(for: "brute@example.com")
        for _ in 0..<5 {
            let response = try await browser.post(
                "/auth/verify", [("email", "brute@example.com"), ("code", wrongCode(than: code))])
            #expect(response.status == 422)
        }
        let right = try await browser.post("/auth/verify", [("email", "brute@example.com"), ("code", code)])
        #expect(right.status == 422)
        #expect(right.text.contains("That code is not right or is no longer valid."))
        await gatehouse.stop()
    }

    @Test func expiredCodeIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = try await signUp(gatehouse, "late@example.com")
        let code = try await gatehouse.latestCode(for: "late@example.com")
        gatehouse.clock.advance(11 * 60)
        let response = try await browser.post("/auth/verify", [("email", "late@example.com"), ("code", code)])
        #expect(response.status == 422)
        #expect(response.text.contains("That code is not right or is no longer valid."))
        await gatehouse.stop()
    }

    @Test func reusedCodeIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = try await signUp(gatehouse, "twice@example.com")
        let code = try await gatehouse.latestCode(for: "twice@example.com")
        let first = try await browser.post("/auth/verify", [("email", "twice@example.com"), ("code", code)])
        #expect(first.status == 303)
        let other = gatehouse.browser()
        _ = try await other.get("/auth/verify?email=twice%40example.com")
        let replay = try await other.post("/auth/verify", [("email", "twice@example.com"), ("code", code)])
        #expect(replay.status == 422)
        #expect(other.cookie("gh_session") == nil)
        await gatehouse.stop()
    }

    @Test func resendHasACooldownAndReplacesTheCode() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = try await signUp(gatehouse, "again@example.com")
        let first = try await gatehouse.latestCode(for: "again@example.com")
        let tooSoon = try await browser.post("/auth/resend-verification", [("email", "again@example.com")])
        #expect(tooSoon.status == 429)
        #expect(tooSoon.text.contains("Please wait"))
        let page = try await browser.get("/auth/verify?email=again%40example.com")
        #expect(page.text.contains("seconds"))

        gatehouse.clock.advance(61)
        let resent = try await browser.post("/auth/resend-verification", [("email", "again@example.com")])
        #expect(resent.status == 303)
        let mails = try await gatehouse.mails(to: "again@example.com")
        #expect(mails.count == 2)
        let second = try #require(mails.first?["code"] as? String)
        if second != first {
            let old = try await browser.post("/auth/verify", [("email", "again@example.com"), ("code", first)])
            #expect(old.status == 422, "the older code stops working once a new one is sent")
        }
        let ok = try await browser.post("/auth/verify", [("email", "again@example.com"), ("code", second)])
        #expect(ok.status == 303)
        await gatehouse.stop()
    }

    @Test func resendForUnknownEmailLooksTheSame() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/resend-verification")
        let response = try await browser.post("/auth/resend-verification", [("email", "nobody@example.com")])
        #expect(response.status == 303)
        #expect(response.header("Location")?.contains("notice=code-sent") == true)
        #expect(try await gatehouse.mails(to: "nobody@example.com").isEmpty)
        await gatehouse.stop()
    }

    @Test func linkVerificationWorksOnceThenSignsIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .link)
        let browser = try await signUp(gatehouse, "linky@example.com")
        let mail = try #require(try await gatehouse.mails(to: "linky@example.com").first)
        let link = try #require(mail["link"] as? String)
        let url = try #require(URLComponents(string: link))
        #expect(url.path == "/auth/verify-link")
        let target = url.path + "?" + (url.percentEncodedQuery ?? "")

        let opened = try await browser.get(target)
        #expect(opened.status == 200)
        #expect(opened.text.contains("Your email is verified"))
        let reused = try await browser.get(target)
        #expect(reused.status == 400)
        // A spent link says so and offers a new one, rather than a bare error page (issue 25, item 6).
        #expect(reused.text.contains("This verification link can"))
        #expect(reused.text.contains("href=\"/auth/resend-verification\""))

        _ = try await browser.get("/auth/sign-in")
        let signIn = try await browser.post("/auth/sign-in", [("email", "linky@example.com"), ("password", "quiet-otter-123")])
        #expect(signIn.header("Location") == "/account")
        await gatehouse.stop()
    }

    @Test func unverifiedSignInIsSentToVerify() async throws {
        let gatehouse = try await TestGatehouse()
        _ = try await signUp(gatehouse, "pending@example.com")
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post(
            "/auth/sign-in", [("email", "pending@example.com"), ("password", "quiet-otter-123")])
        #expect(response.status == 303)
        #expect(response.header("Location")?.hasPrefix("/auth/verify?email=pending%40example.com") == true)
        #expect(browser.cookie("gh_session") == nil)
        await gatehouse.stop()
    }
}
