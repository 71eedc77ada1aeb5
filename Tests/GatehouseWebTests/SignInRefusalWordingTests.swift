import Foundation
import GatehouseWeb
import HTTPTestClient
import TestScope
import Testing

/// Issue 49, items 1 and 3: a sign-in back-off says "wait N s" and a disabled account says
/// "disabled" (after its right password only) on every way in, each in its API's shape — and the
/// back-off reads alike for a known and an unknown address, so neither answer reveals an account.
@Suite(.stopsWhatItStarts) struct SignInRefusalWordingTests {
    static let known = "known@example.com"
    static let unknown = "ghost@example.com"
    static let password = "correct horse battery"

    /// The five ways in a password goes through, each tried once with `email` and `password`.
    private struct WaysIn {
        let gatehouse: TestGatehouse

        func page(_ email: String, _ password: String) async throws -> TestResponse {
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/sign-in")
            return try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
        }

        func pocketBase(_ email: String, _ password: String) async throws -> TestResponse {
            try await gatehouse.script.call(
                "POST", "/api/collections/users/auth-with-password", ["identity": email, "password": password])
        }

        func insForge(_ email: String, _ password: String) async throws -> TestResponse {
            try await gatehouse.postJSON("/api/auth/sessions", ["email": email, "password": password])
        }

        func descope(_ email: String, _ password: String) async throws -> TestResponse {
            let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
            return try await gatehouse.script.call(
                "POST", "/v1/auth/password/signin", ["loginId": email, "password": password], bearer: project)
        }

        func superTokens(_ email: String, _ password: String) async throws -> TestResponse {
            try await gatehouse.script.call(
                "POST", "/public/recipe/signin", ["email": email, "password": password],
                headers: [("cdi-version", "5.4"), ("api-key", TestGatehouse.superTokensAPIKey)])
        }
    }

    /// The page's form message, the address taken out.
    private func formMessage(_ response: TestResponse, _ email: String) -> String {
        guard let range = response.text.range(of: #"Too many tries from this device[^<]*"#, options: .regularExpression)
        else { return "" }
        return String(response.text[range]).replacingOccurrences(of: email, with: "EMAIL")
    }

    @Test func aBackOffSaysWaitAlikeForAKnownAndAnUnknownAddressOnEveryWayIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        gatehouse.clock.freeze()
        _ = try await gatehouse.signedUpBrowser(Self.known, password: Self.password)
        let ways = WaysIn(gatehouse: gatehouse)
        var messages: [String] = []
        for email in [Self.known, Self.unknown] {
            for attempt in 0..<5 {
                #expect(try await ways.page(email, "wrong-\(attempt)").status == 401)
            }
            // The sixth try, even with the right password, waits out the back-off: and says so.
            let locked = try await ways.page(email, Self.password)
            #expect(locked.status == 429, "\(email): \(locked.status)")
            #expect(locked.header("Retry-After") == "2", "\(email): \(locked.header("Retry-After") ?? "none")")
            messages.append(formMessage(locked, email))
            #expect(messages.last?.hasPrefix("Too many tries from this device: try again in 2 s (at ") == true, "\(messages)")

            let pocketBase = try await ways.pocketBase(email, Self.password)
            #expect(pocketBase.status == 429 && pocketBase.json["status"] as? Int == 429, "\(pocketBase.text)")
            let insForge = try await ways.insForge(email, Self.password)
            #expect(insForge.status == 429 && insForge.json["error"] as? String == "TOO_MANY_REQUESTS", "\(insForge.text)")
            let descope = try await ways.descope(email, Self.password)
            #expect(descope.status == 429 && descope.json["errorCode"] as? String == "E130429", "\(descope.text)")
            // The SuperTokens core counts per account (its caller is the app's backend): five of its own.
            for attempt in 0..<5 {
                let wrong = try await ways.superTokens(email, "wrong-\(attempt)")
                #expect(wrong.json["status"] as? String == "WRONG_CREDENTIALS_ERROR", "\(wrong.text)")
            }
            let superTokens = try await ways.superTokens(email, Self.password)
            #expect(superTokens.status == 429, "\(superTokens.status) \(superTokens.text)")
        }
        #expect(messages[0] == messages[1], "the known and the unknown address read alike")
        gatehouse.clock.advance(16 * 60)
        #expect(try await ways.page(Self.known, Self.password).status == 303, "after the wait the right password works")
        await gatehouse.stop()
    }

    @Test func aDisabledAccountIsNamedAfterItsRightPasswordOnlyOnEveryWayIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await gatehouse.signedUpBrowser(Self.known, password: Self.password)
        let token = try await gatehouse.adminToken()
        let users = try await gatehouse.script.call("GET", "/_/api/users?search=known", bearer: token)
        let userID = try #require(((users.json["items"] as? [[String: Any]])?.first)?["id"] as? String, "\(users.text)")
        let disabled = try await gatehouse.script.call("PATCH", "/_/api/users/\(userID)", ["disabled": true], bearer: token)
        #expect(disabled.status == 200, "\(disabled.text)")
        let ways = WaysIn(gatehouse: gatehouse)

        let page = try await ways.page(Self.known, Self.password)
        #expect(page.status == 403 && page.text.contains("This account is disabled."), "\(page.status)")
        let pocketBase = try await ways.pocketBase(Self.known, Self.password)
        #expect(
            pocketBase.status == 403 && pocketBase.json["message"] as? String == "The account is disabled.", "\(pocketBase.text)")
        let insForge = try await ways.insForge(Self.known, Self.password)
        #expect(insForge.status == 403 && insForge.json["error"] as? String == "FORBIDDEN", "\(insForge.text)")
        #expect(insForge.json["message"] as? String == "This account is disabled.", "\(insForge.text)")
        let descope = try await ways.descope(Self.known, Self.password)
        #expect(descope.status == 403 && descope.json["errorCode"] as? String == "E062109", "\(descope.text)")
        let superTokens = try await ways.superTokens(Self.known, Self.password)
        #expect(superTokens.json["status"] as? String == "SIGN_IN_NOT_ALLOWED", "\(superTokens.text)")
        #expect(superTokens.json["reason"] as? String == "The account is disabled.", "\(superTokens.text)")

        // A wrong password for the disabled account reads exactly as one for an unknown address.
        for email in [Self.known, Self.unknown] {
            let page = try await ways.page(email, "not-the-password")
            #expect(page.status == 401 && !page.text.contains("disabled"), "\(email)")
            let pocketBase = try await ways.pocketBase(email, "not-the-password")
            #expect(pocketBase.status == 400 && pocketBase.json["message"] as? String == "Failed to authenticate.")
            let insForge = try await ways.insForge(email, "not-the-password")
            #expect(insForge.status == 401 && insForge.json["error"] as? String == "AUTH_UNAUTHORIZED", "\(insForge.text)")
            let descope = try await ways.descope(email, "not-the-password")
            #expect(descope.status == 401 && descope.json["errorCode"] as? String == "E062801", "\(descope.text)")
            let superTokens = try await ways.superTokens(email, "not-the-password")
            #expect(superTokens.json["status"] as? String == "WRONG_CREDENTIALS_ERROR", "\(superTokens.text)")
        }
        await gatehouse.stop()
    }
}
