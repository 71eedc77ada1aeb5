import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 45: taking the staff role away (`gatehouse superuser delete`, `AppDatabase.deleteSuperuser`)
/// ends that superuser's sessions at every one of staff's doors at once — the console cookie, the
/// admin API's bearer and a PocketBase `_superusers` token — and leaves other staff signed in.
@Suite(.stopsWhatItStarts) struct StaffRoleRemovalTests {
    @Test func removingTheRoleEndsEveryStaffSessionOfThatSuperuser() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let client = HTTPTestClient(port: gatehouse.port)
        let leaving = "leaving@example.com"
        let console = try await gatehouse.staffBrowser(email: leaving)
        let cookie = try #require(console.cookie("gh_console"))
        let apiSignIn = try await gatehouse.script.call(
            "POST", "/_/api/auth", ["email": leaving, "password": "staff-password-1"])
        let bearer = try #require(apiSignIn.json["token"] as? String, "\(apiSignIn.text)")
        let signIn = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password", ["identity": leaving, "password": "staff-password-1"])
        let pocketBase = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        let staying = try await gatehouse.adminToken(email: "staying@example.com")

        func consoleOpens() async throws -> Bool {
            try await client.request("GET", "/_/audit", headers: [("Cookie", "gh_console=\(cookie)")]).status == 200
        }
        func adminAPIOpens(_ token: String) async throws -> Bool {
            try await gatehouse.script.call("GET", "/_/api/users", bearer: token).status == 200
        }
        func pocketBaseRefreshes() async throws -> Bool {
            try await gatehouse.script.call("POST", "/api/collections/_superusers/auth-refresh", token: pocketBase).status == 200
        }
        #expect(try await consoleOpens(), "the cookie opens the console")
        #expect(try await adminAPIOpens(bearer), "the bearer opens the admin API")
        #expect(try await pocketBaseRefreshes(), "the PocketBase token refreshes")

        #expect(try await gatehouse.database.deleteSuperuser(email: leaving))
        #expect(try await consoleOpens() == false, "the console cookie still opens the console")
        #expect(try await adminAPIOpens(bearer) == false, "the admin API's bearer still works")
        #expect(try await pocketBaseRefreshes() == false, "the PocketBase superuser token still refreshes")
        #expect(try await adminAPIOpens(staying), "another superuser was signed out too")
        #expect(try await gatehouse.database.deleteSuperuser(email: leaving) == false, "deleted twice")
        await gatehouse.stop()
    }
}
