import Foundation
import HTTPTestClient
import OAuth
import Secrets
import TestScope
import Testing

/// The built-in test provider over HTTP, the hosted page through a provider button, and the admin token.
@Suite(.stopsWhatItStarts) struct TestProviderTests {
    private func setUp() async throws -> OAuthGatehouse {
        try await OAuthGatehouse()
    }

    private func postJSON(_ gatehouse: OAuthGatehouse, _ path: String, _ json: [String: Any], token: String? = nil) async throws
        -> TestResponse
    {
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
        let page = try await browser.get(
            "/auth/sign-in?"
                + FormEncoding.encode([
                    ("redirect", "notesapp://auth/callback"), ("client_type", "mobile"),
                    ("code_challenge", try PKCE.challenge(for: verifier))
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

        let exchanged = try await postJSON(
            gatehouse, "/api/auth/oauth/exchange?client_type=mobile",
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
            ("state", "s"), ("nonce", "n"), ("code_challenge", try PKCE.challenge(for: String(repeating: "v", count: 43))),
            ("code_challenge_method", "S256")
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

    /// Issue 9, item 1: the provider API takes a superuser token only — a loopback caller without
    /// one (which a DNS-rebinding page is) gets 401, and cannot switch a provider into test mode.
    @Test func theAdminAPIWantsASuperuserTokenEvenFromLoopback() async throws {
        let gatehouse = try await setUp()
        let body: [String: Any] = [
            "name": "acme", "type": "oidc", "mode": "live", "clientId": "t", "issuer": "https://idp.example"
        ]
        #expect(try await postJSON(gatehouse, "/_/api/providers", body).status == 401)
        #expect(try await postJSON(gatehouse, "/_/api/providers", body, token: "wrong").status == 401)
        let token = try await gatehouse.superuserToken()
        #expect(try await postJSON(gatehouse, "/_/api/providers", body, token: token).status == 201)
        #expect(
            try await postJSON(
                gatehouse, "/_/api/providers", ["name": "Bad Name!", "type": "oidc", "clientId": "x"], token: token
            )
            .status == 400)
        // The rebinding attack: flip the live provider to the fake one without a token.
        #expect(try await postJSON(gatehouse, "/_/api/providers/acme/mode", ["mode": "test"]).status == 401)
        #expect(try await gatehouse.database.provider(named: "acme")?.mode == "live")
        #expect(try await HTTPTestClient(port: gatehouse.port).request("GET", "/_/api/apps").status == 401)
        await gatehouse.stop()
    }

    // MARK: The test provider as an OIDC provider over HTTP

    /// A code from the chooser for an authorization request this test makes itself (fixed person 0).
    private func chooseCode(_ gatehouse: OAuthGatehouse, verifier: String, nonce: String) async throws -> String {
        let params: [(String, String)] = [
            ("response_type", "code"), ("client_id", "t"), ("redirect_uri", gatehouse.base + "/auth/oauth/acme/callback"),
            ("state", "state-\(nonce)"), ("nonce", nonce), ("code_challenge", try PKCE.challenge(for: verifier)),
            ("code_challenge_method", "S256")
        ]
        let browser = gatehouse.browser()
        #expect(try await browser.get("/_/test-idp/acme/authorize?" + FormEncoding.encode(params)).status == 200)
        let chosen = try await browser.post("/_/test-idp/acme/authorize", params + [("action", "fixed-0")])
        let location = try #require(chosen.header("Location"))
        return try #require(queryItem("code", in: location))
    }

    private func token(
        _ gatehouse: OAuthGatehouse, code: String, verifier: String, redirectURI: String? = nil,
        clientID: String = "t"
    ) async throws -> TestResponse {
        let fields = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI ?? gatehouse.base + "/auth/oauth/acme/callback"),
            ("code_verifier", verifier), ("client_id", clientID)
        ]
        return try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/test-idp/acme/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: FormBody.encode(fields))
    }

    private func testProvider() async throws -> OAuthGatehouse {
        let gatehouse = try await setUp()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        return gatehouse
    }

    @Test func theDiscoveryDocumentAndJWKSDescribeAnES256Provider() async throws {
        let gatehouse = try await testProvider()
        let client = HTTPTestClient(port: gatehouse.port)
        let discovery = try await client.request("GET", "/_/test-idp/acme/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        let issuer = gatehouse.base + "/_/test-idp/acme"
        #expect(discovery.json["issuer"] as? String == issuer)
        #expect(discovery.json["authorization_endpoint"] as? String == issuer + "/authorize")
        #expect(discovery.json["token_endpoint"] as? String == issuer + "/token")
        #expect(discovery.json["userinfo_endpoint"] as? String == issuer + "/userinfo")
        #expect(discovery.json["jwks_uri"] as? String == issuer + "/jwks")
        #expect(discovery.json["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(discovery.json["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
        let jwks = try await client.request("GET", "/_/test-idp/acme/jwks")
        #expect(jwks.status == 200)
        let keys = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(jwks.text.utf8))
        #expect(keys.keys.count == 1)
        #expect(keys.keys.first?.kty == "EC" && keys.keys.first?.crv == "P-256" && keys.keys.first?.kid != nil)
        #expect(try await client.request("GET", "/_/test-idp/nobody/jwks").status == 404)
        await gatehouse.stop()
    }

    @Test func theTokenEndpointIssuesAnIDTokenThatVerifiesAgainstTheJWKS() async throws {
        let gatehouse = try await testProvider()
        let verifier = String(repeating: "v", count: 43)
        let code = try await chooseCode(gatehouse, verifier: verifier, nonce: "nonce-1")
        let response = try await token(gatehouse, code: code, verifier: verifier)
        #expect(response.status == 200)
        #expect(response.json["token_type"] as? String == "Bearer")
        #expect((response.json["expires_in"] as? Int ?? 0) > 0)
        let idToken = try #require(response.json["id_token"] as? String)
        let jwks = try await HTTPTestClient(port: gatehouse.port).request("GET", "/_/test-idp/acme/jwks")
        let keys = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(jwks.text.utf8))
        let checked = try IDTokenVerifier(issuer: gatehouse.base + "/_/test-idp/acme", audiences: ["t"])
            .verify(idToken, keys: keys, nonce: .equals("nonce-1"), now: Date())
        #expect(checked.audience == ["t"])
        #expect(checked.nonce == "nonce-1")
        #expect(checked.subject == "test-alex")
        #expect(checked.email == "alex@test.gatehouse.local" && checked.emailVerified && checked.name == "Alex Tester")
        #expect(throws: IDTokenError.wrongAudience) {
            try IDTokenVerifier(issuer: gatehouse.base + "/_/test-idp/acme", audiences: ["other"])
                .verify(idToken, keys: keys, nonce: .equals("nonce-1"), now: Date())
        }

        let accessToken = try #require(response.json["access_token"] as? String)
        let info = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/test-idp/acme/userinfo", headers: [("Authorization", "Bearer \(accessToken)")])
        #expect(info.status == 200)
        #expect(info.json["sub"] as? String == "test-alex")
        #expect(info.json["email"] as? String == "alex@test.gatehouse.local")
        let forged = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/test-idp/acme/userinfo", headers: [("Authorization", "Bearer \(idToken)")])
        #expect(forged.status == 401)
        await gatehouse.stop()
    }

    @Test func aWrongVerifierSpendsTheCode() async throws {
        let gatehouse = try await testProvider()
        let verifier = String(repeating: "v", count: 43)
        let code = try await chooseCode(gatehouse, verifier: verifier, nonce: "n")
        let wrong = try await token(gatehouse, code: code, verifier: String(repeating: "w", count: 43))
        #expect(wrong.status == 400)
        #expect(wrong.json["error"] as? String == "invalid_grant")
        let retried = try await token(gatehouse, code: code, verifier: verifier)
        #expect(retried.status == 400)
        #expect(retried.json["error"] as? String == "invalid_grant")
        await gatehouse.stop()
    }

    @Test func aReplayedCodeIsRefused() async throws {
        let gatehouse = try await testProvider()
        let verifier = String(repeating: "v", count: 43)
        let code = try await chooseCode(gatehouse, verifier: verifier, nonce: "n")
        #expect(try await token(gatehouse, code: code, verifier: verifier).status == 200)
        let replay = try await token(gatehouse, code: code, verifier: verifier)
        #expect(replay.status == 400)
        #expect(replay.json["error"] as? String == "invalid_grant")
        await gatehouse.stop()
    }

    @Test func aWrongRedirectURIIsRefused() async throws {
        let gatehouse = try await testProvider()
        let verifier = String(repeating: "v", count: 43)
        let code = try await chooseCode(gatehouse, verifier: verifier, nonce: "n")
        let wrong = try await token(
            gatehouse, code: code, verifier: verifier, redirectURI: gatehouse.base + "/auth/oauth/other/callback")
        #expect(wrong.status == 400)
        #expect(wrong.json["error"] as? String == "invalid_grant")
        let unknown = try await token(gatehouse, code: "not-a-code", verifier: verifier)
        #expect(unknown.status == 400)
        await gatehouse.stop()
    }

    @Test func aCodeExpiresAfterSixtySecondsAndTheSigningKeyIsKeptInTheDatabase() async throws {
        let gatehouse = try await testProvider()
        let verifier = String(repeating: "v", count: 43)
        let code = try await chooseCode(gatehouse, verifier: verifier, nonce: "n")
        gatehouse.clock.advance(61)
        let late = try await token(gatehouse, code: code, verifier: verifier)
        #expect(late.status == 400)
        #expect(late.json["error"] as? String == "invalid_grant")
        let jwks = try await HTTPTestClient(port: gatehouse.port).request("GET", "/_/test-idp/acme/jwks")
        let keys = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(jwks.text.utf8))
        let box = try SecretBox(key: gatehouse.hasher.derivedKey(for: "signing-keys"))
        let stored = try ES256Signer(rawPrivateKey: gatehouse.database.signingKey(named: "test-idp-es256", sealedWith: box))
        #expect(keys == stored.jwks)
        await gatehouse.stop()
    }

    @Test func signInThroughTheTestProviderRedeemsTheCodeAtItsTokenEndpoint() async throws {
        let gatehouse = try await testProvider()
        let browser = gatehouse.browser()
        let toProvider = try await browser.get("/auth/oauth/acme", follow: false)
        let chooserPath = try #require(toProvider.header("Location"))
        var fields: [(String, String)] = []
        for name in ["response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method"] {
            fields.append((name, try #require(queryItem(name, in: "http://x" + chooserPath))))
        }
        _ = try await browser.get(chooserPath)
        let chosen = try await browser.post("/_/test-idp/acme/authorize", fields + [("action", "fixed-0")])
        let callback = try #require(chosen.header("Location"))
        let code = try #require(queryItem("code", in: callback))
        let done = try await browser.get(pathAndQuery(callback), follow: false)
        #expect(done.status == 303)
        #expect(done.header("Location") == "/account")
        // The callback spent the code at the token endpoint, over HTTP like any provider's.
        let replay = try await token(gatehouse, code: code, verifier: String(repeating: "v", count: 43))
        #expect(replay.status == 400)
        #expect(try await browser.get("/account").text.contains("alex@test.gatehouse.local"))
        await gatehouse.stop()
    }
}
