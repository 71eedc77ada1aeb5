import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Issue 13: the request path reads less and remembers more (prepared statements, opened backend
/// sessions, no per-request touch of a console session), and none of it may keep a session alive.
/// Each test uses a browser session and a PocketBase-API token a few times first, so whatever the
/// server remembers about them is warm, then ends them one way and expects the very next request
/// to be refused.
@Suite(.stopsWhatItStarts) struct FastPathRevocationTests {
    private let email = "fast@example.com"
    private let password = "quiet-otter-123"

    /// A server, a superuser's admin-API token, a user id, a signed-in browser and a PocketBase-API token.
    private func signedInEverywhere() async throws -> (TestGatehouse, String, String, Browser, String) {
        let gatehouse = try await TestGatehouse(verification: .none)
        let admin = try await gatehouse.adminToken()
        let created = try await adminCall(
            gatehouse, admin, "POST", "/_/api/users", #"{"email":"\#(email)","password":"\#(password)","verified":true}"#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require((created.json["user"] as? [String: Any])?["id"] as? String)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        #expect(try await browser.post("/auth/sign-in", [("email", email), ("password", password)]).status == 303)
        let auth = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/users/auth-with-password", headers: [("Content-Type", "application/json")],
            body: Array(#"{"identity":"\#(email)","password":"\#(password)"}"#.utf8))
        let token = try #require(auth.json["token"] as? String, "\(auth.text)")
        return (gatehouse, admin, id, browser, token)
    }

    private func adminCall(
        _ gatehouse: TestGatehouse, _ token: String, _ method: String, _ path: String, _ json: String? = nil
    ) async throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(token)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await HTTPTestClient(port: gatehouse.port).request(
            method, path, headers: headers, body: Array((json ?? "").utf8))
    }

    private func refresh(_ gatehouse: TestGatehouse, _ token: String) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/users/auth-refresh", headers: [("Authorization", token)])
    }

    /// Uses both sessions a few times: each answers as signed in.
    private func warm(_ gatehouse: TestGatehouse, _ browser: Browser, _ token: String) async throws {
        for _ in 0..<3 {
            let page = try await browser.get("/account", follow: false)
            #expect(page.status == 200)
            #expect(page.text.contains(email))
            let refreshed = try await refresh(gatehouse, token)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect((refreshed.json["record"] as? [String: Any])?["email"] as? String == email)
        }
    }

    /// Both refused: the page sends the browser to sign in, the API answers 401.
    private func expectRefused(
        _ gatehouse: TestGatehouse, _ browser: Browser, _ token: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let page = try await browser.get("/account", follow: false)
        #expect(page.status == 303, "the page still served a signed-in user", sourceLocation: sourceLocation)
        #expect(page.header("Location")?.hasPrefix("/auth/sign-in") == true, sourceLocation: sourceLocation)
        let refreshed = try await refresh(gatehouse, token)
        #expect(refreshed.status == 401, "\(refreshed.text)", sourceLocation: sourceLocation)
    }

    /// Only the Gatehouse rows are revoked, straight in Store: nothing but the row itself, read on
    /// each request, can refuse them (the embedded backend's own sessions behind them stay live).
    @Test func aRevokedSessionRowIsRefusedOnTheNextRequest() async throws {
        let (gatehouse, _, id, browser, token) = try await signedInEverywhere()
        try await warm(gatehouse, browser, token)
        let rows = try await gatehouse.database.sessions(userID: .init(id))
        #expect(rows.count >= 2)
        for row in rows { try await gatehouse.database.revokeSession(id: row.id, at: gatehouse.clock.now) }
        try await expectRefused(gatehouse, browser, token)
        await gatehouse.stop()
    }

    @Test func aDisabledUserIsRefusedOnTheNextRequest() async throws {
        let (gatehouse, admin, id, browser, token) = try await signedInEverywhere()
        try await warm(gatehouse, browser, token)
        let disabled = try await adminCall(gatehouse, admin, "PATCH", "/_/api/users/\(id)", #"{"disabled":true}"#)
        #expect(disabled.status == 200, "\(disabled.text)")
        try await expectRefused(gatehouse, browser, token)
        await gatehouse.stop()
    }

    @Test func aChangedPasswordIsRefusedOnTheNextRequest() async throws {
        let (gatehouse, admin, id, browser, token) = try await signedInEverywhere()
        try await warm(gatehouse, browser, token)
        let changed = try await adminCall(gatehouse, admin, "PATCH", "/_/api/users/\(id)", #"{"password":"another-pass-456"}"#)
        #expect(changed.status == 200, "\(changed.text)")
        try await expectRefused(gatehouse, browser, token)
        await gatehouse.stop()
    }

    /// A browser impersonation (console) and an impersonation token (PocketBase API), both for a
    /// minute: used within it, refused the first request after it.
    @Test func anExpiredImpersonationIsRefusedOnTheNextRequest() async throws {
        let (gatehouse, _, id, _, _) = try await signedInEverywhere()
        let staff = try await gatehouse.staffBrowser()
        let started = try await staff.post("/_/users/\(id)/impersonate", [("duration", "1"), ("mode", "browser")])
        #expect(started.header("Location") == "/account", "\(started.status) \(started.text.prefix(300))")
        let superAuth = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/_superusers/auth-with-password", headers: [("Content-Type", "application/json")],
            body: Array(#"{"identity":"staff@example.com","password":"staff-password-1"}"#.utf8))
        let superToken = try #require(superAuth.json["token"] as? String, "\(superAuth.text)")
        let impersonated = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/users/impersonate/\(id)",
            headers: [("Authorization", superToken), ("Content-Type", "application/json")],
            body: Array(#"{"duration":60}"#.utf8))
        let token = try #require(impersonated.json["token"] as? String, "\(impersonated.text)")
        try await warm(gatehouse, staff, token)

        gatehouse.clock.advance(61)
        try await expectRefused(gatehouse, staff, token)
        await gatehouse.stop()
    }

    /// Pages are remembered by their whole context (`RenderedPages`): a remembered page still shows
    /// the account as it is now, and each browser's page carries that browser's own CSRF token, which
    /// its form post is then accepted with.
    @Test func aRememberedPageShowsTheAccountAsItIsNowWithEachBrowsersOwnToken() async throws {
        let (gatehouse, admin, id, browser, _) = try await signedInEverywhere()
        let other = gatehouse.browser()
        _ = try await other.get("/auth/sign-in")
        #expect(try await other.post("/auth/sign-in", [("email", email), ("password", password)]).status == 303)
        for _ in 0..<2 {
            let mine = Browser.csrfToken(in: try await browser.get("/account").text)
            let theirs = Browser.csrfToken(in: try await other.get("/account").text)
            #expect(mine != nil && theirs != nil && mine != theirs, "two browsers were shown one CSRF token")
        }
        let renamed = try await adminCall(
            gatehouse, admin, "PATCH", "/_/api/users/\(id)", #"{"profile":{"name":"Renamed Person"}}"#)
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(try await browser.get("/account").text.contains("Renamed Person"))
        let saved = try await other.post("/account", [("name", "Saved From Other"), ("bio", ""), ("avatar_url", "")])
        #expect(saved.status == 303, "the form's token was refused: \(saved.text.prefix(200))")
        #expect(try await browser.get("/account").text.contains("Saved From Other"))
        await gatehouse.stop()
    }

    /// Templates are parsed once, at start-up (a broken one stops Gatehouse before it serves): a
    /// change on disk is not picked up by a running server — as README "Templates" says — and is
    /// by the next start. So an edit is never half-applied, and never silently lost after a restart.
    @Test func aTemplateChangedOnDiskShowsAfterTheNextStartNotBefore() async throws {
        let templates = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: TestGatehouse.repositoryRoot + "/Templates", toPath: templates.path)
        defer { try? FileManager.default.removeItem(at: templates) }
        let running = try await TestGatehouse(verification: .none, templates: templates.path)
        let signIn = templates.appendingPathComponent("sign-in.mustache")
        let original = try String(contentsOf: signIn, encoding: .utf8)
        #expect(try await running.browser().get("/auth/sign-in").text.contains("Edited on disk") == false)

        try ("<!-- Edited on disk -->\n" + original).write(to: signIn, atomically: true, encoding: .utf8)
        let stillOld = try await running.browser().get("/auth/sign-in")
        #expect(stillOld.status == 200)
        #expect(stillOld.text.contains("Edited on disk") == false, "the running server re-read its templates")
        await running.stop()

        let restarted = try await TestGatehouse(verification: .none, templates: templates.path)
        #expect(try await restarted.browser().get("/auth/sign-in").text.contains("Edited on disk"))
        await restarted.stop()
    }
}
