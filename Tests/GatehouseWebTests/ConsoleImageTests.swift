import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 10: a user's avatar URL is any https address its owner chose; staff opening the
/// user in the console must not load it (it would tell the owner who looked, and when).
@Suite(.stopsWhatItStarts) struct ConsoleImageTests {
    @Test func theConsoleNeverLoadsAUsersAvatarFromElsewhere() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let avatar = "https://tracker.example/pixel.png?who=staff"
        let created = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/users", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"email":"pixel@example.com","password":"quiet-otter-123","verified":true}"#.utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
        let id = try #require((json["user"] as? [String: Any])?["id"] as? String)
        let patched = try await HTTPTestClient(port: gatehouse.port).request(
            "PATCH", "/_/api/users/\(id)",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(#"{"profile":{"avatar_url":"\#(avatar)"}}"#.utf8))
        #expect(patched.status == 200, "\(patched.text)")

        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(id)")
        #expect(page.status == 200)
        // No element loads it; the address is offered as a link the staff member may choose to open.
        let images = page.text.components(separatedBy: "<img").dropFirst().map { $0.prefix { $0 != ">" } }
        #expect(!images.isEmpty, "the page has its logo")
        #expect(images.allSatisfy { $0.contains(#"src="/img/logo.svg""#) }, "the user page embeds another image: \(images)")
        #expect(page.text.contains(#"href="https://tracker.example/pixel.png?who=staff""#))
        // And the browser is told not to load remote images on any console page.
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("img-src 'self' data:;"), "console CSP: \(policy)")
        #expect(!policy.contains("https:"), "console CSP allows remote images: \(policy)")

        // The person's own account page still shows their avatar.
        let account = try await gatehouse.browser().get("/auth/sign-in")
        #expect(account.header("Content-Security-Policy")?.contains("img-src 'self' https: data:") == true)
    }
}
