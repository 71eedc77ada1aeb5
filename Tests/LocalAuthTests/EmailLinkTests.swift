import AuthCore
import Foundation
import Secrets
import Synchronization
import Testing

@testable import LocalAuth

/// Verification by mailed link: single use, 24 hours, replaced by a resend.
@Suite struct EmailLinkTests {
    static let configuration = LocalAccounts.Configuration(verification: .link, publicBaseURL: "http://127.0.0.1:8080/")

    /// Signs up in link mode and returns the token from the mailed link.
    func signUpForToken(_ h: Harness, email: String = "ann@example.com") async throws -> String {
        _ = try await h.backend.signUp(SignUpRequest(email: email, password: "quiet-otter-321"))
        let mail = try await h.latestMail(to: email)
        let link = try #require(mail.link)
        #expect(mail.code == nil && mail.text.contains(link))
        let prefix = "http://127.0.0.1:8080/auth/verify-link?token="
        #expect(link.hasPrefix(prefix))
        return String(link.dropFirst(prefix.count))
    }

    @Test func linkVerifiesOnceOnly() async throws {
        let h = try Harness(Self.configuration)
        let token = try await signUpForToken(h)
        // A JWT with PocketBase's link-token claims, so SDKs that read them find what they expect.
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let payload = try #require(Base64URL.decode(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(claims["type"] as? String == "verification" && claims["email"] as? String == "ann@example.com")
        #expect((claims["jti"] as? String)?.count == 43, "256 random bits besides the claims")
        #expect(try await h.backend.verifyEmailLink(token: token).emailVerified)
        await #expect(throws: AuthError.codeExpired) { try await h.backend.verifyEmailLink(token: token) }
        #expect(try await h.backend.signIn(email: "ann@example.com", password: "quiet-otter-321").emailVerified)
    }

    @Test func unknownTokenIsInvalid() async throws {
        let h = try Harness(Self.configuration)
        _ = try await signUpForToken(h)
        await #expect(throws: AuthError.invalidCode) { try await h.backend.verifyEmailLink(token: "not-a-token") }
    }

    @Test func linkExpiresAfterADay() async throws {
        let h = try Harness(Self.configuration)
        let token = try await signUpForToken(h)
        h.clock.advance(by: 24 * 60 * 60)
        await #expect(throws: AuthError.codeExpired) { try await h.backend.verifyEmailLink(token: token) }
    }

    @Test func linkUsesThePublicAddressKnownOnlyAfterStart() async throws {
        let port = Mutex(0)
        let h = try Harness(
            LocalAccounts.Configuration(
                verification: .link,
                publicBaseURL: { "http://127.0.0.1:\(port.withLock { $0 })" }))
        port.withLock { $0 = 49_152 }
        _ = try await h.backend.signUp(SignUpRequest(email: "ann@example.com", password: "quiet-otter-321"))
        let link = try #require(try await h.latestMail(to: "ann@example.com").link)
        #expect(link.hasPrefix("http://127.0.0.1:49152/auth/verify-link?token="))
    }

    @Test func resendKillsTheOldLink() async throws {
        let h = try Harness(Self.configuration)
        let oldToken = try await signUpForToken(h)
        try await h.backend.resendVerification(email: "ann@example.com")
        let newLink = try #require(try await h.latestMail(to: "ann@example.com").link)
        await #expect(throws: AuthError.codeExpired) { try await h.backend.verifyEmailLink(token: oldToken) }
        let newToken = String(newLink.split(separator: "=").last ?? "")
        #expect(try await h.backend.verifyEmailLink(token: newToken).emailVerified)
    }
}
