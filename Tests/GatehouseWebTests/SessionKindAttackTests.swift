import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 2: an app's API token never becomes a browser session. The `sid` in an InsForge
/// or PocketBase access token is readable by any app holding it; prefixed with its kind's
/// namespace it must still not open the person's pages as a `gh_session` cookie.
@Suite(.stopsWhatItStarts) struct SessionKindAttackTests {
    static let email = "held@example.com"
    static let password = "correct horse battery"

    private func pagesOpen(_ gatehouse: TestGatehouse, cookie: String) async throws -> Bool {
        let account = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/account", headers: [("Cookie", "gh_session=\(cookie)")])
        return account.status == 200 && account.text.contains(Self.email)
    }

    @Test func anInsForgeOrPocketBaseAccessTokenIsNoBrowserCookie() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let signUp = try await gatehouse.script.call(
            "POST", "/api/auth/users?client_type=mobile", ["email": Self.email, "password": Self.password], bearer: "anon_key")
        let insForge = try #require(signUp.json["accessToken"] as? String, "\(signUp.text)")
        let insForgeSID = try #require(try AttackScript.claims(of: insForge)["sid"] as? String)
        #expect(try await gatehouse.script.call("GET", "/api/auth/sessions/current", bearer: insForge).status == 200)
        #expect(try await pagesOpen(gatehouse, cookie: "insforge-api:\(insForgeSID)") == false)
        #expect(try await pagesOpen(gatehouse, cookie: insForgeSID) == false)

        let signIn = try await gatehouse.script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": Self.email, "password": Self.password])
        let pocketBase = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        let pocketBaseSID = try #require(try AttackScript.claims(of: pocketBase)["sid"] as? String)
        #expect(try await pagesOpen(gatehouse, cookie: "pocketbase-api:\(pocketBaseSID)") == false)
        #expect(try await pagesOpen(gatehouse, cookie: pocketBaseSID) == false)

        // A real browser session still opens them.
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        _ = try await browser.post("/auth/sign-in", [("email", Self.email), ("password", Self.password)])
        #expect(try await pagesOpen(gatehouse, cookie: try #require(browser.cookie("gh_session"))))
        await gatehouse.stop()
    }

    /// Issue 23: people's and superusers' sessions share one store. A console token, hashed under
    /// its own kind in a row a superuser holds, opens no person's session on any way in.
    @Test func aConsoleTokenIsNoPersonsSession() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        let console = try #require(staff.cookie("gh_console"))
        let client = HTTPTestClient(port: gatehouse.port)
        for cookie in [console, "console:\(console)"] {
            let account = try await client.request("GET", "/account", headers: [("Cookie", "gh_session=\(cookie)")])
            #expect(account.status == 303, "\(cookie) opened /account")
        }
        let insForge = try await gatehouse.script.call("GET", "/api/auth/sessions/current", bearer: console)
        #expect(insForge.status == 401)
        #expect(try await staff.get("/_/audit").status == 200, "the token still opens the console")
        _ = try await staff.post("/_/sign-out", [])
        #expect(try await staff.get("/_/audit", follow: false).status == 303, "signing out revoked the console row")
        await gatehouse.stop()
    }

    /// Issue 42, item 6: staff's three doors — the console cookie, the admin API's bearer token and
    /// a PocketBase `_superusers` token (whose `sid` any app holding it reads) — each take only the
    /// token made for them, so a token leaked through one door opens no other.
    @Test func eachStaffTokenOpensOnlyItsOwnDoor() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let client = HTTPTestClient(port: gatehouse.port)
        func consoleOpens(_ token: String) async throws -> Bool {
            try await client.request("GET", "/_/audit", headers: [("Cookie", "gh_console=\(token)")]).status == 200
        }
        func adminAPIOpens(_ token: String) async throws -> Bool {
            try await gatehouse.script.call("GET", "/_/api/users", bearer: token).status == 200
        }
        let staff = try await gatehouse.staffBrowser()
        let cookie = try #require(staff.cookie("gh_console"))
        let bearer = try await gatehouse.adminToken()
        try await gatehouse.createSuperuser("root@example.com", password: "staff-password-1")
        let signIn = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password",
            ["identity": "root@example.com", "password": "staff-password-1"])
        let pocketBase = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        let pocketBaseSID = try #require(try AttackScript.claims(of: pocketBase)["sid"] as? String)

        #expect(try await consoleOpens(cookie), "the cookie opens the console")
        #expect(try await adminAPIOpens(cookie) == false, "the cookie is no bearer")
        #expect(try await adminAPIOpens(bearer), "the bearer opens the admin API")
        #expect(try await consoleOpens(bearer) == false, "the bearer is no cookie")
        #expect(try await consoleOpens(pocketBaseSID) == false, "a PocketBase token's sid is no cookie")
        #expect(try await adminAPIOpens(pocketBaseSID) == false, "a PocketBase token's sid is no bearer")
        let records = try await gatehouse.script.call("GET", "/api/collections/users/records", token: pocketBase)
        #expect(records.status == 200, "the PocketBase token still lists records: \(records.text)")
        await gatehouse.stop()
    }

    /// Issue 45: staff is a role a session's kind carries, not an address. A person whose address
    /// also holds the staff role signs in on every people's way in; none of those tokens — the
    /// `gh_session` cookie, an InsForge bearer, a PocketBase `users` token or the `sid` inside
    /// either — opens the console, the admin API or PocketBase's `_superusers`.
    @Test func aPersonsTokensOpenNoStaffDoorEvenWhenTheAddressHoldsTheRole() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await gatehouse.createSuperuser(Self.email, password: "staff-password-1")
        let client = HTTPTestClient(port: gatehouse.port)
        let signUp = try await gatehouse.script.call(
            "POST", "/api/auth/users?client_type=mobile", ["email": Self.email, "password": Self.password], bearer: "anon_key")
        let insForge = try #require(signUp.json["accessToken"] as? String, "\(signUp.text)")
        let signIn = try await gatehouse.script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": Self.email, "password": Self.password])
        let pocketBase = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        _ = try await browser.post("/auth/sign-in", [("email", Self.email), ("password", Self.password)])
        let cookie = try #require(browser.cookie("gh_session"))
        #expect(try await pagesOpen(gatehouse, cookie: cookie), "the person is signed in")
        var tokens = ["cookie": cookie, "insforge": insForge, "pocketbase": pocketBase]
        tokens["insforge sid"] = try AttackScript.claims(of: insForge)["sid"] as? String
        tokens["pocketbase sid"] = try AttackScript.claims(of: pocketBase)["sid"] as? String

        for (name, token) in tokens {
            let cookies = "gh_session=\(cookie); gh_console=\(token)"
            let console = try await client.request("GET", "/_/audit", headers: [("Cookie", cookies)])
            #expect(console.status == 303, "the person's \(name) opened the console")
            let api = try await gatehouse.script.call("GET", "/_/api/users", bearer: token)
            #expect(api.status == 401, "the person's \(name) opened the admin API: \(api.status)")
        }
        let refresh = try await gatehouse.script.call("POST", "/api/collections/_superusers/auth-refresh", token: pocketBase)
        #expect(refresh.status == 401, "a users token refreshed as a superuser's: \(refresh.text)")
        await gatehouse.stop()
    }
}
