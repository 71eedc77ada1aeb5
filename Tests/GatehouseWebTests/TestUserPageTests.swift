import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The console's test-users page as support staff use it in a browser.
@Suite(.stopsWhatItStarts) struct TestUserPageTests {
    private func signIn(_ gatehouse: TestGatehouse, _ email: String, _ password: String) async throws -> TestResponse {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        return try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
    }

    @Test func createOneWithAGeneratedPasswordThatSignsIn() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/test-users")
        #expect(page.status == 200)
        #expect(page.text.contains("/_/api/users/export?format=csv"))
        let created = try await staff.post(
            "/_/test-users/create",
            [
                ("email", "made@example.com"), ("password", ""),
                ("name", "Made Up"), ("tag", "demo"), ("verified", "true")
            ])
        #expect(created.status == 200)
        #expect(created.text.contains("Save this password"))
        let range = try #require(
            created.text.range(
                of: #"id="created-password" type="text" readonly value="[^"]+""#,
                options: .regularExpression))
        let password = String(created.text[range].split(separator: "\"").last ?? "")
        #expect(password.count == 20)
        #expect(try await signIn(gatehouse, "made@example.com", password).header("Location") == "/account")

        let again = try await staff.post(
            "/_/test-users/create",
            [
                ("email", "made@example.com"), ("password", "quiet-otter-123"),
                ("name", "Second"), ("tag", "")
            ])
        #expect(again.status == 422)
        #expect(again.text.contains(##"href="#create-email""##))
        #expect(again.text.contains(#"value="Second""#), "keeps what was typed")
        await gatehouse.stop()
    }

    @Test func seedShowsEveryProblemThenSeedsAndDeletesByTag() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/test-users")
        let bad = try await staff.post(
            "/_/test-users/seed",
            [
                ("count", "lots"), ("pattern", "nope@example.com"),
                ("password", "short"), ("tag", "demo")
            ])
        #expect(bad.status == 422)
        for id in ["seed-count", "seed-pattern", "seed-password"] { #expect(bad.text.contains("href=\"#\(id)\"")) }
        #expect(bad.text.contains(#"value="nope@example.com""#))
        #expect(bad.text.contains(#"value="demo""#))
        #expect(!bad.text.contains("short"), "the password is never echoed")

        let seeded = try await staff.post(
            "/_/test-users/seed",
            [
                ("count", "100"), ("pattern", "demo+{n}@example.com"),
                ("password", "shared-password-1"), ("tag", "demo"),
                ("verified", "true")
            ])
        #expect(seeded.status == 200)
        #expect(seeded.text.contains("Created 100 users tagged demo in"))
        #expect(try await staff.get("/_/users?tag=demo").text.contains("100 users"))

        let mismatch = try await staff.post("/_/test-users/bulk-delete", [("tag", "demo"), ("confirm", "dem")])
        #expect(mismatch.status == 422)
        #expect(mismatch.text.contains("bulk-confirm-error"))
        let deleted = try await staff.post("/_/test-users/bulk-delete", [("tag", "demo"), ("confirm", "demo")])
        #expect(deleted.text.contains("Deleted 100 users tagged demo"))
        #expect(try await staff.get("/_/users?tag=demo").text.contains("0 users"))
        let audit = try await gatehouse.database.auditEventTypes()
        #expect(audit.contains("admin.users.seeded") && audit.contains("admin.users.bulk_deleted"))
        await gatehouse.stop()
    }

    @Test func importPageListsBadRowsThenImports() async throws {
        let gatehouse = try await TestGatehouse()
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/test-users")
        let csrf = try #require(Browser.csrfToken(in: page.text))
        let bad =
            "email,password,name,verified,passwordHash\nok@example.com,password-123,,true,\nbroken,password-123,,true,\nalso@example.com,x,,true,\n"
        let refused = try await staff.upload("/_/test-users/import", csrf: csrf, filename: "users.csv", bytes: Array(bad.utf8))
        #expect(refused.status == 422)
        #expect(refused.text.contains("Nothing was imported: 2 rows have problems"))
        #expect(refused.text.contains(#"<th scope="row" class="cx-num">3</th>"#))
        #expect(refused.text.contains(#"<th scope="row" class="cx-num">4</th>"#))
        #expect(try await staff.get("/_/users").text.contains("0 users"))

        let good = #"[{"email":"one@example.com","password":"quiet-otter-123","verified":true},{"email":"two@example.com"}]"#
        let imported = try await staff.upload("/_/test-users/import", csrf: csrf, filename: "users.json", bytes: Array(good.utf8))
        #expect(imported.status == 200)
        #expect(imported.text.contains("Imported 2 users from users.json"))
        let export = try await staff.get("/_/api/users/export?format=csv")
        #expect(export.status == 200, "the console cookie downloads exports")
        #expect(export.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(export.text.contains("two@example.com"))
        await gatehouse.stop()
    }
}

extension Browser {
    /// A multipart form post with one file, as the import form sends it.
    func upload(_ target: String, csrf: String, filename: String, bytes: [UInt8]) async throws -> TestResponse {
        let (contentType, body) = FormBody.multipart(
            [("_csrf", csrf), ("format", "auto")],
            files: [("file", filename, "application/octet-stream", bytes)])
        let response = try await client.request(
            "POST", target, headers: [("Content-Type", contentType)] + jar.headers, body: body)
        jar.update(from: response)
        return response
    }
}
