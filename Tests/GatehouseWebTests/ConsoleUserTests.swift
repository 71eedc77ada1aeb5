import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Support staff managing users through the console pages and the JSON admin API.
@Suite(.stopsWhatItStarts) struct ConsoleUserTests {
    /// Creates a verified user through the admin API and returns its id.
    private func createUser(
        _ gatehouse: TestGatehouse, token: String, email: String, name: String = "",
        password: String = "quiet-otter-123", verified: Bool = true
    ) async throws -> String {
        let body = try JSONSerialization.data(withJSONObject: [
            "email": email, "password": password, "name": name, "verified": verified
        ])
        let response = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: [UInt8](body))
        guard response.status == 201,
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let user = json["user"] as? [String: Any], let id = user["id"] as? String
        else {
            throw TestFailure("create answered \(response.status): \(response.text)")
        }
        return id
    }

    private func signIn(_ gatehouse: TestGatehouse, _ email: String, password: String = "quiet-otter-123") async throws -> Browser
    {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let response = try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
        guard response.status == 303, response.header("Location") == "/account" else {
            throw TestFailure("sign-in answered \(response.status)")
        }
        return browser
    }

    /// Issue 49, item 9: deleting users from the list asks for the count typed, as deleting one does.
    @Test func bulkDeleteAsksForATypedConfirmation() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let ids = [
            try await createUser(gatehouse, token: token, email: "bulk1@example.com"),
            try await createUser(gatehouse, token: token, email: "bulk2@example.com")
        ]
        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/users")
        let form = [("action", "delete"), ("return", "/_/users"), ("confirm", "yes")] + ids.map { ("id", $0) }
        let review = try await staff.post(
            "/_/users/bulk", [("action", "delete"), ("return", "/_/users")] + ids.map { ("id", $0) })
        #expect(review.text.contains(#"data-confirm-match="delete 2 users""#))
        for typed in ["", "delete 2 user", "delete 3 users"] {
            let refused = try await staff.post("/_/users/bulk", form + [("typed", typed)])
            #expect(refused.status == 422 && refused.text.contains("exactly to delete them"), "\(typed)")
            #expect(try await gatehouse.database.user(email: "bulk1@example.com") != nil)
        }
        let deleted = try await staff.post("/_/users/bulk", form + [("typed", " delete 2 users ")])
        #expect(deleted.status == 303)
        #expect(try await gatehouse.database.user(email: "bulk1@example.com") == nil)
        #expect(try await gatehouse.database.user(email: "bulk2@example.com") == nil)
        await gatehouse.stop()
    }

    @Test func searchFilterAndPageThroughUsers() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let staff = try await gatehouse.staffBrowser()
        let none = try await staff.get("/_/users")
        #expect(none.text.contains("No users yet."), "a new server's list blames no filter")
        #expect(!none.text.contains("No users match these filters"))
        for index in 0..<55 {
            _ = try await createUser(
                gatehouse, token: token, email: "list\(index)@example.com", name: "Lister \(index)",
                verified: index % 5 != 0)
        }
        let first = try await staff.get("/_/users")
        #expect(first.status == 200)
        #expect(first.text.contains("55 users"))
        #expect(first.text.contains("list54@example.com"), "newest first")
        let next = try #require(
            first.text.range(of: #"href="(/_/users\?page=2)" rel="next""#, options: .regularExpression)
                .map { String(first.text[$0].dropFirst(6).dropLast(12)) })
        let second = try await staff.get(next)
        #expect(second.text.contains("list0@example.com"))
        #expect(!second.text.contains("list54@example.com"))
        let pastTheEnd = try await staff.get("/_/users?page=99")
        #expect(pastTheEnd.text.contains("This page is past the last one"), "no filter is set, so none is blamed")
        #expect(!pastTheEnd.text.contains("No users match these filters"))
        #expect(pastTheEnd.text.contains(#"href="/_/users">Go to the first page"#))

        let search = try await staff.get("/_/users?q=lister%2012")
        #expect(search.text.contains("list12@example.com"))
        #expect(search.text.contains("1 user"))
        let unverified = try await staff.get("/_/users?verified=no")
        #expect(unverified.text.contains("11 users"))
        let api = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/api/users?search=list1&limit=5&sort=email", headers: [("Authorization", "Bearer \(token)")])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(api.body)) as? [String: Any])
        #expect(json["totalItems"] as? Int == 11)
        // Email order is byte order of the normalized address: "list10@…" sorts before "list1@…".
        #expect((json["items"] as? [[String: Any]])?.first?["email"] as? String == "list10@example.com")
        #expect(json["nextCursor"] is String)
        await gatehouse.stop()
    }

    @Test func editVerifyPasswordDisableAndDelete() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let id = try await createUser(gatehouse, token: token, email: "edit@example.com", name: "Edith", verified: false)
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(id)")
        #expect(page.status == 200)
        #expect(page.text.contains("edit@example.com"))

        let saved = try await staff.post(
            "/_/users/\(id)/profile", [("name", "Edith Clarke"), ("bio", "Engineer"), ("avatar_url", "")])
        #expect(saved.header("Location") == "/_/users/\(id)?notice=user-saved")
        #expect(try await staff.post("/_/users/\(id)/verify", [("verified", "true")]).status == 303)
        let badPassword = try await staff.post("/_/users/\(id)/password", [("password", "short")])
        #expect(badPassword.status == 422)
        #expect(try await staff.post("/_/users/\(id)/password", [("password", "brand-new-password")]).status == 303)

        let user = try await signIn(gatehouse, "edit@example.com", password: "brand-new-password")
        #expect(try await user.get("/account").text.contains("Edith Clarke"))
        #expect(try await staff.post("/_/users/\(id)/disable", [("disabled", "true")]).status == 303)
        #expect(try await user.get("/account", follow: false).status == 303, "a disabled user loses every session at once")
        let refused = gatehouse.browser()
        _ = try await refused.get("/auth/sign-in")
        let disabled = try await refused.post(
            "/auth/sign-in", [("email", "edit@example.com"), ("password", "brand-new-password")])
        #expect(disabled.status == 403 && disabled.text.contains("This account is disabled."), "told after the right password")

        let wrongConfirm = try await staff.post("/_/users/\(id)/delete", [("confirm", "someone@else.com")])
        #expect(wrongConfirm.status == 422)
        let deleted = try await staff.post("/_/users/\(id)/delete", [("confirm", "EDIT@example.com")])
        #expect(deleted.header("Location") == "/_/users?notice=user-deleted")
        #expect(try await staff.get("/_/users/\(id)").status == 404)
        let audit = try await staff.get("/_/audit?user=\(id)")
        // Rows name the superuser by email (besides the sidebar's one mention).
        #expect(audit.text.components(separatedBy: "staff@example.com").count - 1 >= 4)
        for type in [
            "admin.user.verified", "admin.user.password_set", "admin.user.disabled", "admin.user.deleted", "profile.updated"
        ] {
            #expect(audit.text.contains(type), "audit has \(type)")
        }
        await gatehouse.stop()
    }

    @Test func revokingSessionsSignsTheUserOutOnTheirNextRequest() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let id = try await createUser(gatehouse, token: token, email: "revoke@example.com")
        let user = try await signIn(gatehouse, "revoke@example.com")
        let client = HTTPTestClient(port: gatehouse.port)
        let sessions = try await client.request(
            "GET", "/_/api/users/\(id)/sessions", headers: [("Authorization", "Bearer \(token)")])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(sessions.body)) as? [[String: Any]])
        #expect(list.count == 1)
        let sessionID = try #require(list.first?["id"] as? Int)
        let revoked = try await client.request(
            "DELETE", "/_/api/users/\(id)/sessions/\(sessionID)",
            headers: [("Authorization", "Bearer \(token)")])
        #expect(revoked.status == 204)
        #expect(try await user.get("/account", follow: false).status == 303)

        let again = try await signIn(gatehouse, "revoke@example.com")
        let staff = try await gatehouse.staffBrowser()
        #expect(try await staff.post("/_/users/\(id)/sessions/revoke-all", []).status == 303)
        #expect(try await again.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }

    @Test func impersonationShowsABannerEndsOnTimeAndIsAudited() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let id = try await createUser(gatehouse, token: token, email: "viewed@example.com", name: "Viewed Person")
        let staff = try await gatehouse.staffBrowser()
        let started = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(started.header("Location") == "/account")
        let account = try await staff.get("/account")
        #expect(account.text.contains("Viewed Person"))
        #expect(account.text.contains("Viewing as"))
        #expect(account.text.contains("staff@example.com"))

        let nested = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(nested.status == 403, "no nested impersonation")

        let stopped = try await staff.post("/_/impersonation/stop", [])
        #expect(stopped.header("Location") == "/_/users/\(id)?notice=impersonation-stopped")
        #expect(try await staff.get("/account", follow: false).status == 303)

        _ = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(try await staff.get("/account", follow: false).status == 200)
        gatehouse.clock.advance(6 * 60)
        #expect(try await staff.get("/account", follow: false).status == 303, "the impersonation ended on time")

        let audit = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/api/audit?user=\(id)", headers: [("Authorization", "Bearer \(token)")])
        #expect(audit.text.contains("impersonation.started"))
        #expect(audit.text.contains("impersonation.stopped"))
        await gatehouse.stop()
    }

    @Test func superusersCannotBeImpersonated() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        // A user account with the same email as a superuser (the staff member's own account).
        let id = try await createUser(gatehouse, token: token, email: "staff@example.com")
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(id)")
        #expect(
            page.text.contains("Superusers can&#39;t be impersonated") || page.text.contains("Superusers can't be impersonated"))
        let refused = try await staff.post("/_/users/\(id)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(refused.status == 403)
        let api = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users/\(id)/impersonate", headers: [("Authorization", "Bearer \(token)")])
        #expect(api.status == 403)
        await gatehouse.stop()
    }

    @Test func apiImpersonationGivesATokenAndAOneTimeBrowserLink() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let id = try await createUser(gatehouse, token: token, email: "api-viewed@example.com", name: "Api Viewed")
        let client = HTTPTestClient(port: gatehouse.port)
        let issued = try await client.request(
            "POST", "/_/api/users/\(id)/impersonate",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"duration": 600}"#.utf8))
        #expect(issued.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])
        #expect((json["token"] as? String)?.isEmpty == false)
        let url = try #require(json["url"] as? String)
        let browser = gatehouse.browser()
        #expect(try await browser.get(url).text.contains("Api Viewed"))
        #expect(try await gatehouse.browser().get(url, follow: false).status == 410, "the link works once")
        let tooLong = try await client.request(
            "POST", "/_/api/users/\(id)/impersonate",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"duration": 7200}"#.utf8))
        #expect(tooLong.status == 400)
        await gatehouse.stop()
    }

    @Test func adminAPICreatesPatchesAndDeletes() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let client = HTTPTestClient(port: gatehouse.port)
        let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        let generated = try await client.request(
            "POST", "/_/api/users", headers: auth,
            body: Array(#"{"email":"gen@example.com","verified":true,"tag":"demo"}"#.utf8))
        #expect(generated.status == 201)
        let created = try #require(try JSONSerialization.jsonObject(with: Data(generated.body)) as? [String: Any])
        let password = try #require(created["generatedPassword"] as? String)
        let id = try #require((created["user"] as? [String: Any])?["id"] as? String)
        _ = try await signIn(gatehouse, "gen@example.com", password: password)

        let duplicate = try await client.request(
            "POST", "/_/api/users", headers: auth,
            body: Array(#"{"email":"GEN@example.com","password":"quiet-otter-123"}"#.utf8))
        #expect(duplicate.status == 409)
        #expect(duplicate.text.contains("\"error\""))
        let invalid = try await client.request(
            "POST", "/_/api/users", headers: auth,
            body: Array(#"{"email":"not-an-email","password":"x"}"#.utf8))
        #expect(invalid.status == 400)

        let patched = try await client.request(
            "PATCH", "/_/api/users/\(id)", headers: auth,
            body: Array(#"{"profile":{"name":"Gen"},"disabled":true}"#.utf8))
        #expect(patched.status == 200)
        #expect(patched.text.contains("\"disabled\":true"))
        #expect(patched.text.contains("\"name\":\"Gen\""))
        let tagged = try await client.request("GET", "/_/api/users?tag=demo", headers: auth)
        #expect(tagged.text.contains("gen@example.com"))
        #expect(try await client.request("DELETE", "/_/api/users/\(id)", headers: auth).status == 204)
        #expect(try await client.request("GET", "/_/api/users/\(id)", headers: auth).status == 404)
        await gatehouse.stop()
    }
}
