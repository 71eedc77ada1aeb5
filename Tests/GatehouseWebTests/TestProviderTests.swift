import Foundation
import HTTPTestClient
import OAuth
import Testing

/// The built-in test provider over HTTP, the hosted page through a provider button, and the admin token.
@Suite struct TestProviderTests {
    private func setUp(adminToken: String? = nil) async throws -> OAuthGatehouse {
        let gatehouse = try await OAuthGatehouse(adminToken: adminToken)
        return gatehouse
    }

    private func postJSON(_ gatehouse: OAuthGatehouse, _ path: String, _ json: [String: Any], token: String? = nil) async throws -> TestResponse {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await HTTPTestClient(port: gatehouse.port).request(
            "POST", path, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: json)))
    }

    @Test func aProviderButtonOnTheHostedPageEndsWithACodeForTheApp() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        try await gatehouse.admin("/_/api/apps", ["id": "notes", "name": "Notes", "callbackURLs": ["notesapp://auth/callback"]])
        let verifier = "app-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
        let browser = gatehouse.browser()
        let page = try await browser.get("/auth/sign-in?" + FormEncoding.encode([
            ("redirect", "notesapp://auth/callback"), ("client_type", "mobile"), ("code_challenge", PKCE.challenge(for: verifier)),
        ]))
        #expect(page.status == 200)
        let button = try #require(page.text.range(of: #"href="(/auth/oauth/acme\?[^"]+)""#, options: .regularExpression))
        let href = String(page.text[button].dropFirst(6).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
        let toProvider = try await browser.get(href, follow: false)
        let chooserPath = try #require(toProvider.header("Location"))
        #expect(chooserPath.hasPrefix("/_/test-idp/acme/authorize?"))
        let chooser = try await browser.get(chooserPath)
        #expect(chooser.text.contains("Alex Tester"))
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"] {
            fields.append((name, try #require(queryItem(name, in: "http://x" + chooserPath))))
        }
        let chosen = try await browser.post("/_/test-idp/acme/authorize", fields + [("action", "fixed-0")])
        // An app flow leaves the chooser through a page (meta refresh + link), not a redirect after the post.
        #expect(chosen.status == 200)
        let link = try #require(chosen.text.range(of: #"data-continue-url="[^"]+""#, options: .regularExpression))
        let callback = String(chosen.text[link].dropFirst(19).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
        #expect(callback.hasPrefix(gatehouse.base + "/auth/oauth/acme/callback?code="))
        let done = try await browser.get(pathAndQuery(callback), follow: false)
        let back = try #require(done.header("Location"))
        #expect(back.hasPrefix("notesapp://auth/callback?insforge_code="))

        let exchanged = try await postJSON(gatehouse, "/api/auth/oauth/exchange?client_type=mobile",
                                           ["code": try #require(queryItem("insforge_code", in: back)), "code_verifier": verifier])
        #expect(exchanged.status == 200)
        #expect((exchanged.json["user"] as? [String: Any])?["email"] as? String == "alex@test.gatehouse.local")
        #expect((exchanged.json["user"] as? [String: Any])?["providers"] as? [String] == ["acme"])
        await gatehouse.stop()
    }

    @Test func theChooserRefusesPlainPKCEAndForeignRedirects() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let good: [(String, String)] = [
            ("response_type", "code"), ("client_id", "t"), ("redirect_uri", gatehouse.base + "/auth/oauth/acme/callback"),
            ("state", "s"), ("nonce", "n"), ("code_challenge", PKCE.challenge(for: String(repeating: "v", count: 43))),
            ("code_challenge_method", "S256"),
        ]
        let browser = gatehouse.browser()
        #expect(try await browser.get("/_/test-idp/acme/authorize?" + FormEncoding.encode(good)).status == 200)
        let plain = good.map { $0.0 == "code_challenge_method" ? ($0.0, "plain") : $0 }
        #expect(try await browser.get("/_/test-idp/acme/authorize?" + FormEncoding.encode(plain)).status == 404)
        let missing = good.filter { $0.0 != "code_challenge" }
        #expect(try await browser.get("/_/test-idp/acme/authorize?" + FormEncoding.encode(missing)).status == 404)
        let foreign = good.map { $0.0 == "redirect_uri" ? ($0.0, "https://evil.example/cb") : $0 }
        #expect(try await browser.get("/_/test-idp/acme/authorize?" + FormEncoding.encode(foreign)).status == 404)
        await gatehouse.stop()
    }

    @Test func theAdminAPIWantsTheTokenWhenOneIsConfigured() async throws {
        let gatehouse = try await setUp(adminToken: "admin-secret-token")
        let body: [String: Any] = ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"]
        #expect(try await postJSON(gatehouse, "/_/api/providers", body).status == 401)
        #expect(try await postJSON(gatehouse, "/_/api/providers", body, token: "wrong").status == 401)
        #expect(try await postJSON(gatehouse, "/_/api/providers", body, token: "admin-secret-token").status == 201)
        #expect(try await postJSON(gatehouse, "/_/api/providers", ["name": "Bad Name!", "type": "oidc", "clientId": "x"],
                                   token: "admin-secret-token").status == 400)
        await gatehouse.stop()
    }
}
