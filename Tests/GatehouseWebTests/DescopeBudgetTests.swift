import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// The Descope API takes the same budgets as every other way in (issue 22's attacks, tried through
/// `/v1/auth`), and answers a held request in Descope's shape: 429, `E130429`, `Retry-After`.
@Suite(.stopsWhatItStarts) struct DescopeBudgetTests {
    static let password = "correct horse battery"

    private func descope(
        _ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any], from source: String? = nil
    ) async throws -> TestResponse {
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        return try await HTTPTestClient(port: gatehouse.port, source: source).request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(project)")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    private func expectThrottled(_ response: TestResponse, _ what: String) {
        #expect(response.status == 429, "\(what): \(response.status) \(response.text)")
        #expect(response.json["errorCode"] as? String == "E130429", "\(what): \(response.text)")
        #expect(response.json["errorDescription"] is String && response.json["errorMessage"] is String, "\(what)")
        #expect(Int(response.header("Retry-After") ?? "") ?? 0 > 0, "\(what): Retry-After")
    }

    @Test func theFiftyFirstSignUpFromOneAddressIsRefused() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await descope(
                        gatehouse, "/v1/auth/password/signup",
                        ["loginId": "new-\(index)-\(UUID().uuidString)@example.com", "password": Self.password],
                        from: "127.0.0.3")
                }
            }
            for try await response in group { #expect(response.status == 200, "\(response.text)") }
        }
        let refused = try await descope(
            gatehouse, "/v1/auth/password/signup", ["loginId": "descope-51@example.com", "password": Self.password],
            from: "127.0.0.3")
        expectThrottled(refused, "sign-up 51")
        #expect(try await gatehouse.database.user(email: "descope-51@example.com") == nil)
        await gatehouse.stop()
    }

    /// Sign-in codes: one mail a minute per address, the same budget as the pages' code form.
    @Test func signInCodesShareTheAddressMinuteWithThePages() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "descope-codes@example.com"
        #expect(try await descope(gatehouse, "/v1/auth/otp/signup-in/email", ["loginId": email]).status == 200)
        expectThrottled(try await descope(gatehouse, "/v1/auth/otp/signin/email", ["loginId": email]), "second code")
        #expect(try await gatehouse.mails(to: email).count == 1)
        gatehouse.clock.advance(61)
        // (signup-in: the address has no account until a code is spent, and signin mails only accounts)
        #expect(try await descope(gatehouse, "/v1/auth/otp/signup-in/email", ["loginId": email]).status == 200)
        #expect(try await gatehouse.mails(to: email).count == 2)
        await gatehouse.stop()
    }
}
