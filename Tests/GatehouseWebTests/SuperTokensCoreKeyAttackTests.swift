import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 42, item 4: the SuperTokens core is never open by default, and its budgets are each
/// account's, not the app's address (every user of an app reaches the core from the app's backend).
@Suite(.stopsWhatItStarts) struct SuperTokensCoreKeyAttackTests {
    static let password = "correct horse battery"

    /// The core's API key as the console's providers page shows it to staff ("" when it shows none).
    private func shownKey(_ gatehouse: OAuthGatehouse) async throws -> String {
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/providers").text
        guard let start = page.range(of: "data-supertokens-api-key>"),
            let end = page[start.upperBound...].range(of: "<")
        else { return "" }
        return String(page[start.upperBound..<end.lowerBound])
    }

    /// A CDI call as a SuperTokens backend SDK makes it.
    private func core(
        _ gatehouse: OAuthGatehouse, _ path: String, _ body: [String: Any], key: String?
    ) async throws -> TestResponse {
        var headers = [("cdi-version", "5.4")]
        if let key { headers.append(("api-key", key)) }
        return try await AttackScript(port: gatehouse.port).call("POST", path, body, headers: headers)
    }

    @Test func aLoopbackCallerWithoutTheKeyIsRefused() async throws {
        let gatehouse = try await OAuthGatehouse()
        let body: [String: Any] = ["email": "st-open@example.com", "password": Self.password]
        let open = try await core(gatehouse, "/public/recipe/signup", body, key: nil)
        #expect(open.status == 401 && open.text == "Invalid API key", "\(open.status) \(open.text)")
        #expect(try await gatehouse.database.user(email: "st-open@example.com") == nil)

        let key = try await shownKey(gatehouse)
        #expect(key.count >= 20, "the console shows the key made at first start")
        let keyed = try await core(gatehouse, "/public/recipe/signup", body, key: key)
        #expect(keyed.status == 200 && keyed.json["status"] as? String == "OK", "\(keyed.text)")
        await gatehouse.stop()
    }

    /// 40 wrong passwords for one user through the app left every other user of the app locked
    /// out (the source's 30 tries were the app's address's); 60 sign-ups met the address's 50.
    @Test func oneUsersWrongPasswordsAndManySignUpsLockNoOneElseOut() async throws {
        let gatehouse = try await OAuthGatehouse()
        let key = try await shownKey(gatehouse)
        for email in ["st-mallory@example.com", "st-grace@example.com"] {
            let made = try await core(gatehouse, "/public/recipe/signup", ["email": email, "password": Self.password], key: key)
            #expect(made.json["status"] as? String == "OK", "\(made.text)")
        }
        for attempt in 0..<40 {
            _ = try await core(
                gatehouse, "/public/recipe/signin", ["email": "st-mallory@example.com", "password": "wrong-\(attempt)"], key: key)
        }
        let grace = try await core(
            gatehouse, "/public/recipe/signin", ["email": "st-grace@example.com", "password": Self.password], key: key)
        #expect(grace.status == 200 && grace.json["status"] as? String == "OK", "\(grace.status) \(grace.text)")

        for index in 0..<60 {
            let made = try await core(
                gatehouse, "/public/recipe/signup", ["email": "st-new-\(index)@example.com", "password": Self.password], key: key)
            #expect(made.status == 200 && made.json["status"] as? String == "OK", "sign-up \(index): \(made.status) \(made.text)")
        }
        await gatehouse.stop()
    }
}
