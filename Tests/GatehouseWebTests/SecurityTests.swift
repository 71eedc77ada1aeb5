import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The attacks DESIGN.md lists, each tried against the real server.
@Suite(.stopsWhatItStarts) struct SecurityTests {
    private func signedUpVerified(_ gatehouse: TestGatehouse, _ email: String, password: String = "quiet-otter-123")
        async throws -> Browser
    {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", email), ("password", password), ("name", "")])
        return browser
    }

    @Test func twentyParallelSignUpsOfOneEmailMakeOneAccount() async throws {
        let gatehouse = try await TestGatehouse()
        let variants = (0..<20).map { index in
            String(
                "race@example.com".enumerated().map { offset, letter in
                    (index >> (offset % 5)) & 1 == 1 ? Character(letter.uppercased()) : letter
                })
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for email in variants {
                group.addTask {
                    let browser = gatehouse.browser()
                    _ = try await browser.get("/auth/sign-up")
                    return try await browser.post(
                        "/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")]
                    )
                    .status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // One account and one code; every sign-up answers alike (issue 9, item 6), and the owner
        // is told of each attempt on the taken address.
        #expect(statuses == Array(repeating: 303, count: 20))
        let total = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/api/users?limit=1", headers: [("Authorization", "Bearer \(try await gatehouse.adminToken())")])
        #expect(total.text.contains("\"totalItems\":1"), "\(total.text)")
        let subjects = try await gatehouse.mails(to: "race@example.com").compactMap { $0["subject"] as? String }
        #expect(subjects.filter { $0 == "Your Gatehouse verification code" }.count == 1)
        #expect(subjects.filter { $0 == "Someone tried to sign up with your Gatehouse address" }.count == 19)
        await gatehouse.stop()
    }

    @Test func unknownEmailAnswersExactlyLikeAWrongPassword() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await signedUpVerified(gatehouse, "known@example.com")
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let wrongPassword = try await browser.post(
            "/auth/sign-in", [("email", "known@example.com"), ("password", "not-the-password")])
        let unknown = try await browser.post("/auth/sign-in", [("email", "ghost@example.com"), ("password", "not-the-password")])
        #expect(wrongPassword.status == 401)
        #expect(unknown.status == wrongPassword.status)
        let normalize = { (text: String, email: String) in
            text.replacingOccurrences(of: email, with: "EMAIL")
                .replacingOccurrences(of: #"value="[A-Za-z0-9_-]{20,}""#, with: "TOKEN", options: .regularExpression)
        }
        #expect(normalize(unknown.text, "ghost@example.com") == normalize(wrongPassword.text, "known@example.com"))
        await gatehouse.stop()
    }

    /// The back-off says how long to wait (issue 49), as it does for an unknown address.
    @Test func aLockedAccountSaysHowLongToWait() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await signedUpVerified(gatehouse, "target@example.com", password: "the-real-password")
        let attacker = gatehouse.browser()
        _ = try await attacker.get("/auth/sign-in")
        for attempt in 0..<10 {
            let response = try await attacker.post(
                "/auth/sign-in", [("email", "target@example.com"), ("password", "guess-\(attempt)")])
            #expect(response.status == (attempt < 5 ? 401 : 429))
        }
        let owner = gatehouse.browser()
        _ = try await owner.get("/auth/sign-in")
        let locked = try await owner.post("/auth/sign-in", [("email", "target@example.com"), ("password", "the-real-password")])
        #expect(locked.status == 429)
        #expect(locked.text.contains("Too many tries from this device: try again in"))
        gatehouse.clock.advance(16 * 60)
        let later = try await owner.post("/auth/sign-in", [("email", "target@example.com"), ("password", "the-real-password")])
        #expect(later.status == 303)
        await gatehouse.stop()
    }

    @Test func formsWithoutAValidCSRFTokenAreRefused() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let fields = [("email", "csrf@example.com"), ("password", "quiet-otter-123"), ("name", "")]
        let wrong = try await browser.post("/auth/sign-up", fields, csrf: "forged-token")
        #expect(wrong.status == 403)
        let stranger = gatehouse.browser()
        let missing = try await stranger.post("/auth/sign-up", fields, csrf: "")
        #expect(missing.status == 403)
        let crossSite = try await browser.post("/auth/sign-up", fields, headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(crossSite.status == 403)
        let foreignOrigin = try await browser.post("/auth/sign-up", fields, headers: [("Origin", "https://evil.example")])
        #expect(foreignOrigin.status == 403)
        #expect(try await gatehouse.mails(to: "csrf@example.com").isEmpty, "no account was created")
        let sameOrigin = try await browser.post(
            "/auth/sign-up", fields,
            headers: [
                ("Origin", "http://127.0.0.1:\(gatehouse.port)"), ("Sec-Fetch-Site", "same-origin")
            ])
        #expect(sameOrigin.status == 303)
        await gatehouse.stop()
    }

    /// Chromium sends `Origin: null` with same-origin posts from `Referrer-Policy: no-referrer` pages;
    /// `Sec-Fetch-Site` decides then. Without it, a `null` origin is refused.
    @Test func nullOriginIsJudgedBySecFetchSite() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let fields = [("email", "null-origin@example.com"), ("password", "quiet-otter-123"), ("name", "")]
        let bare = try await browser.post("/auth/sign-up", fields, headers: [("Origin", "null")])
        #expect(bare.status == 403)
        let chromium = try await browser.post(
            "/auth/sign-up", fields,
            headers: [
                ("Origin", "null"), ("Sec-Fetch-Site", "same-origin")
            ])
        #expect(chromium.status == 303)
        await gatehouse.stop()
    }

    @Test func duplicatedFieldIsRejectedNotGuessed() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post(
            "/auth/sign-in",
            [
                ("email", "a@example.com"), ("email", "b@example.com"), ("password", "quiet-otter-123")
            ])
        #expect(response.status == 400)
        #expect(response.text.contains("email"))
        await gatehouse.stop()
    }

    @Test func scriptInNameAndBioComesBackEscaped() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let payload = #"<script>alert("x")</script><img src=x onerror=alert(1)>"#
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post(
            "/auth/sign-up", [("email", "xss@example.com"), ("password", "quiet-otter-123"), ("name", payload)])
        _ = try await browser.get("/account")
        _ = try await browser.post(
            "/account",
            [
                ("name", payload), ("bio", payload), ("avatar_url", ""),
                ("custom_key_0", "note"), ("custom_value_0", payload)
            ])
        let page = try await browser.get("/account")
        #expect(page.status == 200)
        #expect(!page.text.contains("<script>alert"))
        #expect(!page.text.contains("<img src=x"))
        #expect(page.text.contains("&lt;script&gt;"))
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
        await gatehouse.stop()
    }

    @Test func oversizedBodyGets413() async throws {
        let gatehouse = try await TestGatehouse(maxBodyBytes: 64 * 1024)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let big = String(repeating: "a", count: 100 * 1024)
        let response = try await browser.post(
            "/auth/sign-up", [("email", "big@example.com"), ("password", "quiet-otter-123"), ("name", big)])
        #expect(response.status == 413)
        #expect(try await gatehouse.mails(to: "big@example.com").isEmpty)
        await gatehouse.stop()
    }

    @Test func traversalUnderPublicIs404() async throws {
        let gatehouse = try await TestGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        let css = try await client.request("GET", "/css/gatehouse.css")
        #expect(css.status == 200)
        #expect(css.header("Content-Type")?.hasPrefix("text/css") == true)
        for target in [
            "/css/../../Package.swift", "/css/%2e%2e/%2e%2e/Package.swift", "/css/%252e%252e/%252e%252e/Package.swift",
            "/css/..%2f..%2fPackage.swift", "/css/", "/css/.hidden", "/css/..\\..\\Package.swift"
        ] {
            let response = try await client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(response.status == 404 || response.status == 400, "\(target) answered \(response.status)")
            #expect(!response.text.contains("PackageDescription"), "\(target) leaked a file")
        }
        await gatehouse.stop()
    }

    @Test func malformedPercentEncodingIs400() async throws {
        let gatehouse = try await TestGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        for target in ["/auth/sign-in?email=%zz", "/auth/%E0%A4%A", "/auth/verify?email=%"] {
            let response = try await client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(response.status == 400, "\(target) answered \(response.status)")
        }
        await gatehouse.stop()
    }

    @Test func signInRedirectStaysOnSite() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await signedUpVerified(gatehouse, "redirect@example.com")
        for target in ["//evil.example/", "/\\evil.example", "https://evil.example", "javascript:alert(1)"] {
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/sign-in")
            let response = try await browser.post(
                "/auth/sign-in",
                [
                    ("email", "redirect@example.com"), ("password", "quiet-otter-123"), ("redirect", target)
                ])
            #expect(response.header("Location") == "/account", "redirect=\(target)")
        }
        await gatehouse.stop()
    }

    @Test func signInRotatesTheSessionAndSignOutKillsIt() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = try await signedUpVerified(gatehouse, "rotate@example.com")
        let first = try #require(browser.cookie("gh_session"))
        _ = try await browser.get("/auth/sign-in?redirect=/account")
        _ = try await browser.get("/account")
        _ = try await browser.post("/auth/sign-out", [])
        _ = try await browser.get("/auth/sign-in")
        _ = try await browser.post("/auth/sign-in", [("email", "rotate@example.com"), ("password", "quiet-otter-123")])
        let second = try #require(browser.cookie("gh_session"))
        #expect(first != second)

        let response = try await HTTPTestClient(port: gatehouse.port)
            .request("GET", "/account", headers: [("Cookie", "gh_session=\(first)")])
        #expect(response.status == 303, "a signed-out session cookie no longer works")
        await gatehouse.stop()
    }

    @Test func pagesCarryTheSecurityHeaders() async throws {
        let gatehouse = try await TestGatehouse()
        let page = try await HTTPTestClient(port: gatehouse.port).request("GET", "/auth/sign-in")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        let cookie = page.headerValues("Set-Cookie").first { $0.hasPrefix("gh_csrf=") } ?? ""
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Lax"))
        await gatehouse.stop()
    }
}
