import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// Issue 42, item 6: an enchanted link signs in only the app polling with its pending ref. Its
/// mailed token, handed to another way of opening a link — Descope's `magiclink/verify` or the
/// pages' "Continue as …" — opens no session.
@Suite(.stopsWhatItStarts) struct EnchantedLinkBindingAttackTests {
    static let email = "enchanted-held@example.com"

    private func descope(_ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any]) async throws -> TestResponse {
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        return try await gatehouse.script.call("POST", path, body, bearer: project)
    }

    /// Starts an enchanted sign-in for an existing account; the pending ref and the mailed token.
    private func enchantedLink(_ gatehouse: TestGatehouse) async throws -> (pendingRef: String, token: String) {
        _ = try await gatehouse.signedUpBrowser(Self.email, password: "correct horse battery")
        let started = try await descope(gatehouse, "/v1/auth/enchantedlink/signin/email", ["loginId": Self.email])
        let pendingRef = try #require(started.json["pendingRef"] as? String, "\(started.text)")
        let link = try #require(try await gatehouse.mails(to: Self.email).first?["link"] as? String)
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "t" }?.value, "\(link)")
        return (pendingRef, token)
    }

    @Test func descopesMagicLinkVerifyRefusesAnEnchantedLinksToken() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (pendingRef, token) = try await enchantedLink(gatehouse)
        let verified = try await descope(gatehouse, "/v1/auth/magiclink/verify", ["token": token])
        #expect(verified.status == 401 && verified.json["sessionJwt"] == nil, "\(verified.status) \(verified.text)")

        // The app that holds the ref still signs in once the person approves.
        #expect(try await descope(gatehouse, "/v1/auth/enchantedlink/verify", ["token": token]).status == 200)
        let polled = try await descope(gatehouse, "/v1/auth/enchantedlink/pending-session", ["pendingRef": pendingRef])
        #expect(polled.status == 200 && polled.json["sessionJwt"] is String, "\(polled.text)")
        await gatehouse.stop()
    }

    @Test func thePagesContinueAsDoesNotOpenAnEnchantedLink() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, token) = try await enchantedLink(gatehouse)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/magic?t=\(token)")
        let continued = try await browser.post("/auth/magic", [("t", token)], follow: false)
        #expect(continued.status == 400, "\(continued.status) \(continued.header("Location") ?? "")")
        #expect(try await browser.get("/account", follow: false).status == 303, "no session was opened")
        await gatehouse.stop()
    }
}
