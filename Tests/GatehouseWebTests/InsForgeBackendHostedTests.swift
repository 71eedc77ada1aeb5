import AuthCore
import Foundation
import TestScope
import Testing

/// The client core's `InsForgeBackend` through Gatehouse's hosted sign-in page, as an app on
/// InsForge's Swift SDK does it: `signInWithDefaultView` → the page → back to the app with
/// `insforge_code` → `handleAuthCallback` → a session the client core refreshes and ends.
@Suite(.stopsWhatItStarts) struct InsForgeBackendHostedTests {
    static let callback = "yourapp://auth/callback"

    private func setUp() async throws -> (OAuthGatehouse, InsForgeBackend) {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/apps", ["id": "sample", "name": "Sample app", "callbackURLs": [Self.callback]])
        let backend = InsForgeBackend(configuration: .init(baseURL: URL(string: gatehouse.base)!))
        return (gatehouse, backend)
    }

    /// Opens the hosted page as a browser would and signs in there; returns where it sent the browser.
    private func signInOnThePage(_ gatehouse: OAuthGatehouse, _ hosted: InsForgeBackend.HostedSignIn, email: String)
        async throws -> String
    {
        let browser = gatehouse.browser()
        let components = try #require(URLComponents(url: hosted.url, resolvingAgainstBaseURL: false))
        #expect(components.path == "/auth/sign-in")
        let page = try await browser.get(components.path + "?" + (components.percentEncodedQuery ?? ""))
        #expect(page.status == 200, "\(page.text.prefix(300))")
        let form = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let done = try await browser.post(
            "/auth/sign-in", [("email", email), ("password", "correct horse battery")] + form)
        #expect(done.status == 303)
        return try #require(done.header("Location"))
    }

    @Test func theHostedPageRoundTripGivesAWorkingSession() async throws {
        let (gatehouse, backend) = try await setUp()
        try await gatehouse.signUp(gatehouse.browser(), email: "app-user@example.com")

        let hosted = try backend.signInWithDefaultView(redirectTo: Self.callback)
        #expect(hosted.codeVerifier.count == 43, "32 random bytes, base64url, as the SDK makes them")
        let query = try #require(URLComponents(url: hosted.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.first { $0.name == "client_type" }?.value == "mobile")
        #expect(query.first { $0.name == "code_challenge" }?.value?.count == 43)
        #expect(!query.contains { $0.name == "code_challenge_method" }, "S256 is implied, as the SDK sends it")

        let location = try await signInOnThePage(gatehouse, hosted, email: "app-user@example.com")
        #expect(location.hasPrefix(Self.callback + "?insforge_code="))
        let returned = try #require(URL(string: location))

        // Another app's verifier gets nothing, and spends the code.
        let other = try backend.signInWithDefaultView(redirectTo: Self.callback)
        let stolen = try await signInOnThePage(gatehouse, other, email: "app-user@example.com")
        let stolenURL = try #require(URL(string: stolen))
        await #expect(throws: AuthError.invalidCode) {
            try await backend.handleAuthCallback(stolenURL, codeVerifier: hosted.codeVerifier)
        }
        await #expect(throws: AuthError.invalidCode, "a refused exchange spends the code") {
            try await backend.handleAuthCallback(stolenURL, codeVerifier: other.codeVerifier)
        }

        let session = try await backend.handleAuthCallback(returned, codeVerifier: hosted.codeVerifier)
        #expect(session.user.email == "app-user@example.com")
        #expect(session.refreshable && session.expiresAt != nil, "a JWT access token and a refresh token")
        await #expect(throws: AuthError.invalidCode, "a code works once") {
            try await backend.handleAuthCallback(returned, codeVerifier: hosted.codeVerifier)
        }

        // The client core takes it from here: current user, refresh, sign out.
        let client = AuthClient(api: backend, storage: InMemorySessionStorage())
        try await client.adopt(session)
        #expect(try await client.getCurrentUser()?.email == "app-user@example.com")
        let refreshed = try await client.refreshSession()
        #expect(refreshed.refreshToken != session.refreshToken, "the refresh token rotates")
        try await client.signOut()
        #expect(try await client.getSession() == nil)
        await #expect(throws: AuthError.sessionExpired, "sign-out revoked the session on the server") {
            try await backend.currentUser(refreshed)
        }
        await gatehouse.stop()
    }

    @Test func aCallbackWithAnErrorOrNoCodeIsRefusedWithoutACall() async throws {
        let backend = InsForgeBackend(configuration: .init(baseURL: URL(string: "http://127.0.0.1:1")!))
        for url in [
            "yourapp://auth/callback?error=access_denied", "yourapp://auth/callback", "yourapp://auth/callback?insforge_code="
        ] {
            let callback = try #require(URL(string: url))
            await #expect(throws: AuthError.invalidCode) { try await backend.handleAuthCallback(callback, codeVerifier: "v") }
        }
    }
}
