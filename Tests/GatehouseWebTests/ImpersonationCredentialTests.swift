import AuthCore
import Foundation
import HTTPTestClient
import Secrets
import TestScope
import Testing

/// While a superuser views the pages as a user, the user's sign-in methods cannot be changed.
@Suite(.stopsWhatItStarts) struct ImpersonationCredentialTests {
    @Test func linkingAndUnlinkingProvidersIsRefusedWhileImpersonating() async throws {
        let gatehouse = try await OAuthGatehouse()
        let user = Browser(port: gatehouse.port)
        _ = try await user.get("/auth/sign-up")
        _ = try await user.post(
            "/auth/sign-up", [("email", "held@example.com"), ("password", "quiet-otter-123"), ("name", "Held")])
        let userID = try #require(try await gatehouse.database.user(email: "held@example.com")?.id)
        _ = try await gatehouse.database.linkExternal(
            ExternalIdentity(provider: "google", subject: "google-held", email: "held@example.com", emailVerified: true),
            to: userID, at: Date())

        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.get("/_/users/\(userID.rawValue)")
        let opened = try await staff.post("/_/users/\(userID.rawValue)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        _ = try await staff.get("/account")
        let unlink = try await staff.post("/account/linked/google/unlink", [])
        #expect(unlink.status == 403)
        let link = try await staff.get("/auth/oauth/google?link=1", follow: false)
        #expect(link.status == 403)
        #expect(try await gatehouse.database.externalAuths(userID: userID).count == 1, "the link is still there")
        await gatehouse.stop()
    }
}
