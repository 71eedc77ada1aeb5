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

    /// The linked accounts and sessions pages leave out what an impersonation cannot submit —
    /// linking, unlinking, signing out of devices — and say why, as the password and email pages
    /// do (issue 49, item 5); the person sees every one of them.
    @Test func thePagesLeaveOutWhatAnImpersonationCannotSubmitAndSayWhy() async throws {
        let gatehouse = try await OAuthGatehouse()
        _ = try await gatehouse.admin(
            "/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "displayName": "Acme", "clientId": "acme-client"]
        )
        let user = gatehouse.browser()
        try await gatehouse.signUp(user, email: "held@example.com")
        let userID = try #require(try await gatehouse.database.user(email: "held@example.com")?.id)
        _ = try await gatehouse.database.linkExternal(
            ExternalIdentity(provider: "google", subject: "google-held", email: "held@example.com", emailVerified: true),
            to: userID, at: Date())
        let forms = [
            "/account/linked": [#"data-link="acme""#, #"data-unlink="google""#],
            "/account/sessions": ["data-sign-out=", "data-sign-out-all"]
        ]
        for (path, marks) in forms {
            let own = try await user.get(path)
            #expect(marks.allSatisfy(own.text.contains) && !own.text.contains("data-impersonation-note"), "\(path)")
        }

        let staff = try await gatehouse.staffBrowser()
        let opened = try await staff.post("/_/users/\(userID.rawValue)/impersonate", [("duration", "5"), ("mode", "browser")])
        #expect(opened.header("Location") == "/account")
        let notes = [
            "/account/linked": "Support staff viewing as this person can't link or unlink sign-in providers.",
            "/account/sessions": "Support staff viewing as this person can't sign them out of their devices."
        ]
        for (path, marks) in forms {
            let viewed = try await staff.get(path)
            #expect(viewed.status == 200 && viewed.text.contains("Viewing as"), "\(path)")
            #expect(!marks.contains(where: viewed.text.contains), "\(path) offers a form the impersonation cannot submit")
            #expect(viewed.text.contains("<p class=\"muted\" data-impersonation-note>\(notes[path] ?? "")</p>"), "\(path)")
        }
        await gatehouse.stop()
    }

    /// With no provider configured the linked accounts page has nothing to link or unlink, so the
    /// impersonation note about linking has nothing to explain either.
    @Test func noProvidersMeansNoNoteAboutLinking() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let user = gatehouse.browser()
        _ = try await user.get("/auth/sign-up")
        let signedUp = try await user.post("/auth/sign-up", [("email", "unlinked@example.com"), ("password", "quiet-otter-123")])
        #expect(signedUp.status == 303)
        let userID = try #require(try await gatehouse.database.user(email: "unlinked@example.com")?.id)
        let staff = try await gatehouse.staffBrowser()
        _ = try await staff.post("/_/users/\(userID.rawValue)/impersonate", [("duration", "5"), ("mode", "browser")])
        let viewed = try await staff.get("/account/linked")
        #expect(viewed.status == 200 && viewed.text.contains("No external sign-in providers are configured yet."))
        #expect(!viewed.text.contains("data-impersonation-note"), "a note about linking with nothing to link")
        await gatehouse.stop()
    }
}
