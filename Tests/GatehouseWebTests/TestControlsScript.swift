import Foundation
import GatehouseWeb
import HTTPTestClient

/// A test suite using Gatehouse's own test controls (`/_/api/test/…`) with a superuser's
/// admin-API token, and the ways in as their apps would: one account, signed in every way by one
/// call each, whose credentials it then presents again.
struct TestControlsScript {
    let gatehouse: TestGatehouse
    let token: String

    init(_ gatehouse: TestGatehouse) async throws {
        self.gatehouse = gatehouse
        token = try await gatehouse.adminToken()
    }

    func call(
        _ method: String, _ path: String, _ body: [String: Any]? = nil, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            method, path, headers: (body == nil ? [] : [("Content-Type", "application/json")]) + headers,
            body: try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? [])
    }

    /// A test control called with the superuser's token (`bearer` replaces it).
    func control(_ path: String, _ body: [String: Any], bearer: String? = nil) async throws -> TestResponse {
        try await call("POST", "/_/api/test/" + path, body, headers: [("Authorization", "Bearer \(bearer ?? token)")])
    }

    /// A new verified account's id.
    func account(_ email: String) async throws -> String {
        let created = try await call(
            "POST", "/_/api/users", ["email": email, "verified": true], headers: [("Authorization", "Bearer \(token)")])
        guard let user = created.json["user"] as? [String: Any], let id = user["id"] as? String else {
            throw TestFailure("account not created: \(created.status) \(created.text)")
        }
        return id
    }

    /// What each way in handed out for one person, as its app keeps it.
    struct Held {
        var userID: String
        var cookie: String
        var pocketBase: String
        var insForge: String
        var descope: String
        var superTokens: String
        var superTokensAccess: String
    }

    /// The person at `email` signed in every way, one call each.
    func signInEveryWay(_ email: String) async throws -> Held {
        func signIn(_ way: String) async throws -> [String: Any] {
            let answer = try await control("sign-in", ["email": email, "way": way])
            guard answer.status == 200 else { throw TestFailure("\(way) sign-in: \(answer.status) \(answer.text)") }
            return answer.json
        }
        let page = try await signIn("pages")
        let cookie = page["cookie"] as? [String: Any]
        let pocketBase = try await signIn("pocketbase")["token"] as? String
        let insForge = try await signIn("insforge")["refreshToken"] as? String
        let descope = try await signIn("descope")["refreshJwt"] as? String
        let session = try await signIn("supertokens")
        let superTokens = (session["refreshToken"] as? [String: Any])?["token"] as? String
        let superTokensAccess = (session["accessToken"] as? [String: Any])?["token"] as? String
        guard let userID = page["userId"] as? String, let value = cookie?["value"] as? String, let pocketBase, let insForge,
            let descope, let superTokens,
            let superTokensAccess
        else { throw TestFailure("a way in answered without its credential") }
        return Held(
            userID: userID, cookie: value, pocketBase: pocketBase, insForge: insForge, descope: descope, superTokens: superTokens,
            superTokensAccess: superTokensAccess)
    }

    /// Each way's refresh (the pages: opening `/account`), answered as each API answers it.
    struct Refreshed {
        var page: TestResponse
        var pocketBase: TestResponse
        var insForge: TestResponse
        var descope: TestResponse
        var superTokensCore: TestResponse
    }

    func refreshEveryWay(_ held: Held) async throws -> Refreshed {
        let project = try descopeProject()
        return Refreshed(
            page: try await call("GET", "/account", headers: [("Cookie", "gh_session=\(held.cookie)")]),
            pocketBase: try await call(
                "POST", "/api/collections/users/auth-refresh", headers: [("Authorization", held.pocketBase)]),
            insForge: try await call("POST", "/api/auth/refresh", ["refreshToken": held.insForge]),
            descope: try await call(
                "POST", "/v1/auth/refresh", [:], headers: [("Authorization", "Bearer \(project):\(held.descope)")]),
            superTokensCore: try await call(
                "POST", "/recipe/session/refresh", ["refreshToken": held.superTokens, "enableAntiCsrf": false],
                headers: [("api-key", TestGatehouse.superTokensAPIKey), ("cdi-version", "5.4")]))
    }

    /// The SuperTokens core's check of an access token, without the database (the token alone).
    func superTokensVerify(_ accessToken: String) async throws -> TestResponse {
        try await call(
            "POST", "/recipe/session/verify",
            ["accessToken": accessToken, "enableAntiCsrf": false, "doAntiCsrfCheck": false, "checkDatabase": false],
            headers: [("api-key", TestGatehouse.superTokensAPIKey), ("cdi-version", "5.4")])
    }

    /// The audit rows of `type`, newest first.
    func audit(_ type: String) async throws -> [[String: Any]] {
        let rows = try await call("GET", "/_/api/audit?type=\(type)", headers: [("Authorization", "Bearer \(token)")])
        return (try? JSONSerialization.jsonObject(with: Data(rows.body))) as? [[String: Any]] ?? []
    }

    /// The Descope project this server answers for (the one-call sign-in signs for it).
    func descopeProject() throws -> String {
        DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
    }
}
