import Foundation
import HTTPServer
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// Sign-in, linking and the security refusals against the real `oidc-provider-mock` over HTTP.
@Suite(.serialized, .stopsWhatItStarts) struct OIDCProviderTests {
    /// A Gatehouse with provider "mock" pointing at a fresh oidc-provider-mock.
    private func setUp(_ extra: [String: Any] = [:]) async throws -> (OAuthGatehouse, OIDCProviderMock) {
        let mock = try await OIDCProviderMock()
        let gatehouse = try await OAuthGatehouse()
        var provider: [String: Any] = [
            "name": "mock", "type": "oidc", "issuer": mock.issuer, "clientId": "gatehouse-test",
            "clientSecret": "s3cret", "scopes": ["openid", "email", "profile"]
        ]
        for (key, value) in extra { provider[key] = value }
        try await gatehouse.admin("/_/api/providers", provider)
        return (gatehouse, mock)
    }

    /// Start → mock's page → Gatehouse's callback URL (not yet visited).
    private func goToProvider(_ browser: Browser, mock: OIDCProviderMock, subject: String, link: Bool = false) async throws
        -> String
    {
        let start = try await browser.get("/auth/oauth/mock" + (link ? "?link=1" : ""), follow: false)
        guard start.status == 303, let location = start.header("Location") else {
            throw TestFailure("start answered \(start.status): \(start.text.prefix(300))")
        }
        #expect(location.hasPrefix(mock.issuer + "/oauth2/authorize?"))
        #expect(queryItem("code_challenge_method", in: location) == "S256")
        #expect(queryItem("code_challenge", in: location)?.count == 43)
        #expect(queryItem("nonce", in: location) != nil)
        return try await mock.authorize(location, as: subject)
    }

    @Test func firstSignInCreatesAUserWithTheProviderLinked() async throws {
        let (gatehouse, mock) = try await setUp()
        defer { mock.stop() }
        try await mock.setUser("alice-sub", ["email": "alice@example.com", "email_verified": true, "name": "Alice Mock"])
        let browser = gatehouse.browser()
        let callback = try await goToProvider(browser, mock: mock, subject: "alice-sub")
        let done = try await browser.get(pathAndQuery(callback), follow: false)
        #expect(done.status == 303)
        #expect(done.header("Location") == "/account")
        let account = try await browser.get("/account")
        #expect(account.text.contains("alice@example.com"))
        #expect(account.text.contains("Alice Mock"))
        let linked = try await browser.get("/account/linked")
        #expect(linked.text.contains("alice-sub"))
        #expect(linked.text.contains("Connected"))
        #expect(try await gatehouse.auditTypes().contains("external_auth.linked"))

        // A provider-only account cannot drop its only way in.
        let refused = try await browser.post("/account/linked/mock/unlink", [])
        #expect(refused.status == 409)
        #expect(refused.text.contains("only way to sign in"))
        await gatehouse.stop()
    }

    @Test func linksToTheSignedInAccountAndUnlinks() async throws {
        let (gatehouse, mock) = try await setUp()
        defer { mock.stop() }
        let browser = gatehouse.browser()
        try await gatehouse.signUp(browser, email: "bob@example.com")
        // The provider reports another address: linking is explicit, so the address does not matter.
        try await mock.setUser("bob-sub", ["email": "bob.other@example.com", "email_verified": false])
        let callback = try await goToProvider(browser, mock: mock, subject: "bob-sub", link: true)
        let done = try await browser.get(pathAndQuery(callback), follow: false)
        #expect(done.header("Location") == "/account/linked?notice=linked")
        let linked = try await browser.get("/account/linked")
        #expect(linked.text.contains("bob-sub"))

        let unlinked = try await browser.post("/account/linked/mock/unlink", [])
        #expect(unlinked.status == 303)
        #expect(unlinked.header("Location") == "/account/linked?notice=unlinked")
        #expect(!(try await browser.get("/account/linked")).text.contains("bob-sub"))
        let types = try await gatehouse.auditTypes()
        #expect(types.contains("external_auth.linked") && types.contains("external_auth.unlinked"))
        await gatehouse.stop()
    }

    @Test func linksByVerifiedEmailButNeverToAnUnverifiedAccount() async throws {
        let (gatehouse, mock) = try await setUp()
        defer { mock.stop() }
        // The provider does not vouch for the address, so the existing account is not taken over.
        try await mock.setUser("carol-sub", ["email": "carol@example.com", "email_verified": false])
        let owner = gatehouse.browser()
        try await gatehouse.signUp(owner, email: "carol@example.com")  // verification is off here: verified account
        let other = gatehouse.browser()
        let callback = try await goToProvider(other, mock: mock, subject: "carol-sub")
        let refused = try await other.get(pathAndQuery(callback), follow: false)
        #expect(refused.status == 409)
        #expect(refused.text.contains("already exists"))

        try await mock.setUser("carol-sub2", ["email": "carol@example.com", "email_verified": true])
        let callback2 = try await goToProvider(other, mock: mock, subject: "carol-sub2")
        let linked = try await other.get(pathAndQuery(callback2), follow: false)
        #expect(linked.header("Location") == "/account")
        await gatehouse.stop()
    }

    @Test func refusesReplayWrongStateOtherBrowserAndUnknownProvider() async throws {
        let (gatehouse, mock) = try await setUp()
        defer { mock.stop() }
        try await mock.setUser("dave-sub", ["email": "dave@example.com", "email_verified": true])
        let browser = gatehouse.browser()
        let callback = try await goToProvider(browser, mock: mock, subject: "dave-sub")
        let path = pathAndQuery(callback)

        // Another browser (no gh_oauth cookie) presenting this browser's code and state.
        let thief = gatehouse.browser()
        let stolen = try await thief.get(path, follow: false)
        #expect(stolen.status == 400)
        #expect(stolen.text.contains("another browser"))
        // The flow was consumed by that attempt, so even the right browser cannot reuse it.
        let replay = try await browser.get(path, follow: false)
        #expect(replay.status == 400)
        #expect(replay.text.contains("already completed"))

        let fresh = try await goToProvider(browser, mock: mock, subject: "dave-sub")
        #expect(try await browser.get(pathAndQuery(fresh), follow: false).status == 303)
        let replayed = try await browser.get(pathAndQuery(fresh), follow: false)
        #expect(replayed.status == 400)

        let code = queryItem("code", in: fresh) ?? ""
        let wrongState = try await browser.get("/auth/oauth/mock/callback?code=\(code)&state=forged-state", follow: false)
        #expect(wrongState.status == 400)
        #expect(wrongState.text.contains("not one Gatehouse started"))

        let unknown = try await browser.get("/auth/oauth/nosuch/callback?code=\(code)&state=x", follow: false)
        #expect(unknown.status == 404)
        #expect(try await browser.get("/auth/oauth/nosuch", follow: false).status == 404)
        let refusals = try await gatehouse.database.auditEvents(subject: nil, limit: 50).filter { $0.type == "oauth.refused" }
        #expect(refusals.count >= 4)
        await gatehouse.stop()
    }

    @Test func refusesAnIDTokenSignedByAnotherKey() async throws {
        // The provider's id_tokens are checked against a JWKS that does not hold the mock's key.
        let jwks = try LoopbackPeer { router in
            router.get("/jwks") { _, _ in
                .json(
                    raw:
                        #"{"keys":[{"kty":"EC","kid":"other","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
                )
            }
        }
        defer { Task { await jwks.stop() } }
        let (gatehouse, mock) = try await setUp(["jwksURL": "http://127.0.0.1:\(jwks.port)/jwks"])
        defer { mock.stop() }
        try await mock.setUser("eve-sub", ["email": "eve@example.com", "email_verified": true])
        let browser = gatehouse.browser()
        let callback = try await goToProvider(browser, mock: mock, subject: "eve-sub")
        let refused = try await browser.get(pathAndQuery(callback), follow: false)
        #expect(refused.status == 400)
        #expect(try await gatehouse.database.user(email: "eve@example.com") == nil)
        let reasons = try await gatehouse.database.auditEvents(subject: nil, limit: 50)
            .filter { $0.type == "oauth.refused" }.compactMap { $0.data["reason"]?.stringValue }
        #expect(reasons.contains { $0.hasPrefix("id_token:") })
        await gatehouse.stop()
    }

    @Test func refusesAnIDTokenForAnotherAudience() async throws {
        // A provider that answers for another client: the browser's authorization request and the
        // token request (through a proxy) name client "someone-else", so the mock's validly signed
        // id_token has that audience — which Gatehouse, configured as "gatehouse-test", must refuse.
        let mockHolder = MockHolder()
        let proxy = try LoopbackPeer { router in
            router.post("/token") { request, _ in
                var pairs: [(String, String)] = []
                for pair in try request.form() where pair.name != "client_id" { pairs.append((pair.name, pair.value)) }
                pairs.append(("client_id", "someone-else"))
                let response = try await HTTPTestClient(port: mockHolder.port).request(
                    "POST", "/oauth2/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: FormBody.encode(pairs))
                return Response(status: response.status, headers: ["Content-Type": "application/json"], body: response.body)
            }
        }
        defer { Task { await proxy.stop() } }
        let mock = try await OIDCProviderMock()
        defer { mock.stop() }
        mockHolder.port = mock.port
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/providers",
            [
                "name": "mock", "type": "oidc", "issuer": mock.issuer, "clientId": "gatehouse-test",
                "authorizationURL": mock.issuer + "/oauth2/authorize", "tokenURL": "http://127.0.0.1:\(proxy.port)/token",
                "jwksURL": mock.issuer + "/jwks", "scopes": ["openid", "email"]
            ])
        try await mock.setUser("mallory-sub", ["email": "mallory@example.com", "email_verified": true])
        let browser = gatehouse.browser()
        let start = try #require(try await browser.get("/auth/oauth/mock", follow: false).header("Location"))
        let forOtherClient = start.replacingOccurrences(of: "client_id=gatehouse-test", with: "client_id=someone-else")
        let callback = try await mock.authorize(forOtherClient, as: "mallory-sub")
        let refused = try await browser.get(pathAndQuery(callback), follow: false)
        #expect(refused.status == 400)
        #expect(try await gatehouse.database.user(email: "mallory@example.com") == nil)
        let reasons = try await gatehouse.database.auditEvents(subject: nil, limit: 50)
            .filter { $0.type == "oauth.refused" }.compactMap { $0.data["reason"]?.stringValue }
        #expect(reasons.contains("id_token:wrongAudience"), "\(reasons)")
        await gatehouse.stop()
    }

    @Test func clientSecretsAreSealedAtRestAndNeverReturned() async throws {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/providers", ["name": "google", "type": "oidc", "clientId": "g-id", "clientSecret": "very-secret-value"])
        let listed = try await gatehouse.adminGet("/_/api/providers")
        #expect(listed.text.contains("\"hasClientSecret\":true"))
        #expect(!listed.text.contains("very-secret-value"))
        let record = try await gatehouse.database.provider(named: "google")
        let sealed = try #require(record?.clientSecretSealed)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("very-secret-value"))
        let keyFile = gatehouse.directory.appendingPathComponent("gatehouse.key").path
        let permissions = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        await gatehouse.stop()
    }
}

final class MockHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var port: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// PocketBase's OAuth2 code flow through Gatehouse's PocketBase API (issue 11): the app takes the
/// provider's `authURL` from `auth-methods`, appends its redirect URL, and posts the code back with
/// the verifier — against the real oidc-provider-mock.
@Suite(.stopsWhatItStarts) struct PocketBaseOAuth2Tests {
    @Test func authMethodsListTheProviderAndTheCodeSignsIn() async throws {
        let mock = try await OIDCProviderMock()
        defer { mock.stop() }
        let gatehouse = try await OAuthGatehouse()
        try await mock.serveAsLiveProvider(
            to: gatehouse, person: "erin-sub", ["email": "erin@example.com", "email_verified": true, "name": "Erin Mock"])
        let client = HTTPTestClient(port: gatehouse.port)

        let methods = try await client.request("GET", "/api/collections/users/auth-methods")
        let oauth2 = try #require(methods.json["oauth2"] as? [String: Any])
        #expect(oauth2["enabled"] as? Bool == true)
        let provider = try #require((oauth2["providers"] as? [[String: Any]])?.first)
        #expect(
            Set(provider.keys) == [
                "name", "displayName", "state", "authURL", "codeVerifier", "codeChallenge", "codeChallengeMethod"
            ])
        let authURL = try #require(provider["authURL"] as? String)
        #expect(authURL.hasSuffix("redirect_uri="), "the SDK appends its own redirect URL")
        let redirect = "http://127.0.0.1:\(gatehouse.port)/api/oauth2-redirect"
        let callback = try await mock.authorize(
            authURL + (redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""), as: "erin-sub")
        let code = try #require(URLComponents(string: callback)?.queryItems?.first { $0.name == "code" }?.value)

        func exchange(_ verifier: Any) async throws -> TestResponse {
            let body = try JSONSerialization.data(withJSONObject: [
                "provider": "mock", "code": code, "codeVerifier": verifier, "redirectUrl": redirect, "createData": NSNull()
            ])
            return try await client.request(
                "POST", "/api/collections/users/auth-with-oauth2", headers: [("Content-Type", "application/json")],
                body: Array(body))
        }
        // A verifier that is not the flow's: the provider refuses the code, so does Gatehouse.
        let wrong = try await exchange("x" + (provider["codeVerifier"] as? String ?? ""))
        #expect(wrong.status == 400 && wrong.json["message"] as? String == "Failed to authenticate.")
        let callback2 = try await mock.authorize(
            authURL + (redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""), as: "erin-sub")
        let code2 = try #require(URLComponents(string: callback2)?.queryItems?.first { $0.name == "code" }?.value)
        let body = try JSONSerialization.data(withJSONObject: [
            "provider": "mock", "code": code2, "codeVerifier": provider["codeVerifier"] as? String ?? "", "redirectURL": redirect
        ])
        let signedIn = try await client.request(
            "POST", "/api/collections/users/auth-with-oauth2", headers: [("Content-Type", "application/json")], body: Array(body))
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect((signedIn.json["record"] as? [String: Any])?["email"] as? String == "erin@example.com")
        #expect((signedIn.json["meta"] as? [String: Any])?["isNew"] as? Bool == true)
        #expect(signedIn.json["token"] is String)
        await gatehouse.stop()
    }
}
