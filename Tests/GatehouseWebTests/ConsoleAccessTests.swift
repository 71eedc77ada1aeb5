import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Who reaches the console and its API, and how they are refused.
@Suite(.stopsWhatItStarts) struct ConsoleAccessTests {
    @Test func anonymousVisitorsGoToConsoleSignInAndAPICallersGet401() async throws {
        let gatehouse = try await TestGatehouse()
        let client = HTTPTestClient(port: gatehouse.port)
        let page = try await client.request("GET", "/_/audit")
        #expect(page.status == 303)
        #expect(page.header("Location") == "/_/?redirect=%2F_%2Faudit")
        let signIn = try await client.request("GET", "/_/")
        #expect(signIn.status == 200)
        #expect(signIn.header("Content-Type")?.hasPrefix("text/html") == true)
        let api = try await client.request("GET", "/_/api/audit")
        #expect(api.status == 401)
        #expect(api.text.contains("\"error\":\"UNAUTHORIZED\""))
        await gatehouse.stop()
    }

    @Test func aUsersSessionNeverReachesTheConsole() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let user = gatehouse.browser()
        _ = try await user.get("/auth/sign-up")
        _ = try await user.post("/auth/sign-up", [("email", "plain@example.com"), ("password", "quiet-otter-123"), ("name", "")])
        let session = try #require(user.cookie("gh_session"))
        let console = try await user.get("/_/audit", follow: false)
        #expect(console.status == 303, "a user's cookie is not a console session")
        let api = try await HTTPTestClient(port: gatehouse.port)
            .request("GET", "/_/api/audit", headers: [("Authorization", "Bearer \(session)")])
        #expect(api.status == 401, "a user's session token is not an admin token")
        await gatehouse.stop()
    }

    @Test func superuserSignsInSeesTheAuditLogAndSignsOut() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let user = gatehouse.browser()
        _ = try await user.get("/auth/sign-up")
        _ = try await user.post(
            "/auth/sign-up", [("email", "audited@example.com"), ("password", "quiet-otter-123"), ("name", "")])
        _ = try await user.post("/auth/sign-out", [])
        _ = try await user.get("/auth/sign-in")
        _ = try await user.post("/auth/sign-in", [("email", "audited@example.com"), ("password", "wrong-password")])

        let staff = try await gatehouse.staffBrowser()
        let cookie = try #require(staff.jar.cookieHeader)
        #expect(cookie.contains("gh_console="))
        let audit = try await staff.get("/_/audit")
        #expect(audit.status == 200)
        #expect(audit.text.contains("user.signed_up"))
        #expect(audit.text.contains("sign_in.failed"))
        #expect(audit.text.contains("<svg"))
        let filtered = try await staff.get("/_/audit?type=sign_in.failed")
        #expect(filtered.text.contains("wrong password") && !filtered.text.contains("unknown address"), "a known account's")
        let badDate = try await staff.get("/_/audit?from=yesterday")
        #expect(badDate.status == 422)
        #expect(badDate.text.contains("2026-11-21T09:30"))

        _ = try await staff.post("/_/sign-out", [])
        let after = try await staff.get("/_/audit", follow: false)
        #expect(after.status == 303)
        await gatehouse.stop()
    }

    @Test func consoleCookieIsStrictAndWrongPasswordIsGeneric() async throws {
        let gatehouse = try await TestGatehouse()
        try await gatehouse.createSuperuser("boss@example.com", password: "right-password-1")
        let browser = gatehouse.browser()
        _ = try await browser.get("/_/")
        let wrong = try await browser.post("/_/", [("email", "boss@example.com"), ("password", "wrong-password")])
        let unknown = try await browser.post("/_/", [("email", "nobody@example.com"), ("password", "wrong-password")])
        #expect(wrong.status == 401)
        #expect(unknown.status == 401)
        #expect(wrong.text.contains("don&#39;t match a superuser") || wrong.text.contains("don't match a superuser"))
        let right = try await browser.post("/_/", [("email", "boss@example.com"), ("password", "right-password-1")])
        #expect(right.status == 303)
        let setCookie = right.headerValues("Set-Cookie").first { $0.hasPrefix("gh_console=") } ?? ""
        #expect(setCookie.contains("SameSite=Strict"))
        #expect(setCookie.contains("HttpOnly"))
        await gatehouse.stop()
    }

    @Test func idleConsoleSessionEnds() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        #expect(try await staff.get("/_/audit").status == 200)
        gatehouse.clock.advance(31 * 60)
        #expect(try await staff.get("/_/audit", follow: false).status == 303)
        await gatehouse.stop()
    }

    @Test func adminAPITokenReadsTheAuditLog() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let client = HTTPTestClient(port: gatehouse.port)
        let events = try await client.request(
            "GET", "/_/api/audit?type=console.sign_in.completed",
            headers: [("Authorization", "Bearer \(token)")])
        #expect(events.status == 200)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(events.body)) as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["type"] as? String == "console.sign_in.completed")
        let bad = try await client.request(
            "POST", "/_/api/auth", headers: [("Content-Type", "application/json")],
            body: Array(#"{"email":"api-staff@example.com","password":"nope-nope"}"#.utf8))
        #expect(bad.status == 401)
        #expect(bad.text.contains("INVALID_CREDENTIALS"))
        await gatehouse.stop()
    }
}
