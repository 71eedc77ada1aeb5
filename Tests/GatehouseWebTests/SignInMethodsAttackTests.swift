import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// Issue 42, item 7: `--sign-in-methods` held only on the pages. A method turned off is refused by
/// its owner on every way in, each API answering in its own shape; the pages still offer the rest.
@Suite(.stopsWhatItStarts) struct SignInMethodsAttackTests {
    static let email = "methods@example.com"
    static let password = "correct horse battery"

    private func descope(_ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any]) async throws -> TestResponse {
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        return try await gatehouse.script.call("POST", path, body, bearer: project)
    }

    @Test func passwordsTurnedOffAreOffOnEveryAPI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, signInMethods: [.emailCode, .magicLink])
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        let credentials: [String: Any] = ["identity": Self.email, "password": Self.password]
        let pocketBase = try await gatehouse.script.call("POST", "/api/collections/users/auth-with-password", credentials)
        #expect(pocketBase.status == 403 && pocketBase.json["status"] as? Int == 403, "\(pocketBase.text)")
        let methods = try await gatehouse.script.call("GET", "/api/collections/users/auth-methods")
        #expect((methods.json["password"] as? [String: Any])?["enabled"] as? Bool == false, "\(methods.text)")
        let insForge = try await gatehouse.postJSON("/api/auth/sessions", ["email": Self.email, "password": Self.password])
        #expect(insForge.status == 403 && insForge.json["statusCode"] as? Int == 403, "\(insForge.text)")
        let descope = try await descope(gatehouse, "/v1/auth/password/signin", ["loginId": Self.email, "password": Self.password])
        #expect(descope.status == 403 && descope.json["errorCode"] is String, "\(descope.text)")
        let superTokens = try await gatehouse.script.call(
            "POST", "/public/recipe/signin", ["email": Self.email, "password": Self.password],
            headers: [("cdi-version", "5.4"), ("api-key", TestGatehouse.superTokensAPIKey)])
        #expect(superTokens.status == 403, "\(superTokens.status) \(superTokens.text)")
        await gatehouse.stop()
    }

    @Test func mailedCodesAndLinksTurnedOffAreOffOnEveryAPI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, signInMethods: [.password])
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        let pocketBase = try await gatehouse.script.call("POST", "/api/collections/users/request-otp", ["email": Self.email])
        #expect(pocketBase.status == 403 && pocketBase.json["status"] as? Int == 403, "\(pocketBase.text)")
        let insForge = try await gatehouse.postJSON("/api/auth/email/send-otp", ["email": Self.email])
        #expect(insForge.status == 403, "\(insForge.text)")
        for path in ["/v1/auth/otp/signin/email", "/v1/auth/magiclink/signin/email", "/v1/auth/enchantedlink/signin/email"] {
            let descope = try await descope(gatehouse, path, ["loginId": Self.email])
            #expect(descope.status == 403 && descope.json["errorCode"] is String, "\(path): \(descope.text)")
        }
        #expect(try await gatehouse.mails(to: Self.email).isEmpty, "no code or link went out")
        let password = try await gatehouse.script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": Self.email, "password": Self.password])
        #expect(password.status == 200, "the method left on still signs in: \(password.text)")
        await gatehouse.stop()
    }
}
