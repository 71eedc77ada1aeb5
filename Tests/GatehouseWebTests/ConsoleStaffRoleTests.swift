import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 45, item 1: staff is a role an address holds. The console's users list and user page
/// badge the account whose address is a superuser's too (any letter case), and only while it is:
/// taking the role away (`gatehouse superuser delete`) takes the badge away.
@Suite(.stopsWhatItStarts) struct ConsoleStaffRoleTests {
    /// The users list's row of `email`, from its checkbox to the end of the row.
    private func row(_ email: String, in page: TestResponse) -> String {
        guard let start = page.text.range(of: "aria-label=\"Select \(email)\"") else { return "" }
        let rest = page.text[start.upperBound...]
        return String(rest[..<(rest.range(of: "</tr>")?.lowerBound ?? rest.endIndex)])
    }

    @Test func theAccountWhoseAddressHoldsTheRoleIsBadgedOnlyWhileItDoes() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let token = try await gatehouse.adminToken()
        var ids: [String: String] = [:]
        for email in ["ann@example.com", "bob@example.com"] {
            let made = try await gatehouse.script.call(
                "POST", "/_/api/users", ["email": email, "password": "correct horse battery"], bearer: token)
            ids[email] = try #require((made.json["user"] as? [String: Any])?["id"] as? String, "\(made.text)")
        }
        try await gatehouse.createSuperuser("Ann@Example.com", password: "staff-password-1")
        let staff = try await gatehouse.staffBrowser()

        let list = try await staff.get("/_/users")
        #expect(row("ann@example.com", in: list).contains("data-role=\"staff\""), "ann's row has no staff badge")
        #expect(!row("bob@example.com", in: list).contains("data-role=\"staff\""), "bob's row has a staff badge")
        let ann = try await staff.get("/_/users/\(try #require(ids["ann@example.com"]))")
        #expect(ann.text.contains("data-role=\"staff\""), "ann's page has no staff badge")
        let bob = try await staff.get("/_/users/\(try #require(ids["bob@example.com"]))")
        #expect(!bob.text.contains("data-role=\"staff\""), "bob's page has a staff badge")

        #expect(try await gatehouse.database.deleteSuperuser(email: "ann@example.com"))
        #expect(!row("ann@example.com", in: try await staff.get("/_/users")).contains("data-role=\"staff\""))
        #expect(!(try await staff.get("/_/users/\(try #require(ids["ann@example.com"]))")).text.contains("data-role=\"staff\""))
        await gatehouse.stop()
    }

    /// The staff page lists every superuser — also one with no person's account — badged, with
    /// their two-step sign-in; the users list links to it, and a taken role leaves it.
    @Test func theStaffPageListsEverySuperuserWithTheirTwoStepSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (staff, _, _) = try await SuperuserTOTPRuleTests.superuserWithTOTP(gatehouse)
        try await gatehouse.createSuperuser("ops@example.com", password: "staff-password-2")
        #expect(try await staff.get("/_/users").text.contains(#"href="/_/staff""#), "the users list links to it")

        let page = try await staff.get("/_/staff")
        #expect(page.status == 200)
        let root = staffRow(SuperuserTOTPRuleTests.email, in: page)
        #expect(root.contains("data-role=\"staff\"") && root.contains("(you)") && root.contains(">On<"), "\(root)")
        let ops = staffRow("ops@example.com", in: page)
        #expect(ops.contains("data-role=\"staff\"") && !ops.contains("(you)") && ops.contains(">Off<"), "\(ops)")
        #expect(ops.contains("0 passkeys"), "\(ops)")

        #expect(try await gatehouse.database.deleteSuperuser(email: "ops@example.com"))
        #expect(staffRow("ops@example.com", in: try await staff.get("/_/staff")).isEmpty, "a taken role is still listed")
        await gatehouse.stop()
    }

    /// The staff page's row of `email`.
    private func staffRow(_ email: String, in page: TestResponse) -> String {
        guard let start = page.text.range(of: "data-staff=\"\(email)\"") else { return "" }
        let rest = page.text[start.upperBound...]
        return String(rest[..<(rest.range(of: "</tr>")?.lowerBound ?? rest.endIndex)])
    }
}
