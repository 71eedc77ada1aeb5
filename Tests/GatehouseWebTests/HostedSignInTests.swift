import Foundation
import HTTPServer
import HTTPTestClient
import OAuth
import TestScope
import Testing

/// The hosted sign-in page for apps (InsForge SDK's `signInWithDefaultView` + `handleAuthCallback`).
@Suite(.stopsWhatItStarts) struct HostedSignInTests {
    static let verifier = "test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
    /// `PKCE.challenge(for: verifier)`, computed once outside Swift.
    static let challenge = "nw4Cig7sk_DT0QSX9Qn-3UKs33fmbbp8bRuv1b5-wXw"

    private func setUp(extraCallbacks: [String] = [], legacy: Bool = false) async throws -> OAuthGatehouse {
        let gatehouse = try await OAuthGatehouse()
        try await gatehouse.admin(
            "/_/api/apps",
            [
                "id": "sample", "name": "Sample app", "legacyCallback": legacy,
                "callbackURLs": ["https://app.com/callback", "yourapp://auth/callback"] + extraCallbacks
            ])
        return gatehouse
    }

    private func signInPath(
        _ redirect: String, clientType: String = "mobile", challenge: String? = HostedSignInTests.challenge,
        method: String? = nil
    ) -> String {
        var items = [("redirect", redirect), ("client_type", clientType)]
        if let challenge { items.append(("code_challenge", challenge)) }
        if let method { items.append(("code_challenge_method", method)) }
        return "/auth/sign-in?" + FormEncoding.encode(items)
    }

    private func exchange(_ gatehouse: OAuthGatehouse, code: String, verifier: String, clientType: String = "mobile") async throws
        -> TestResponse
    {
        let body = try JSONSerialization.data(withJSONObject: ["code": code, "code_verifier": verifier])
        return try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/oauth/exchange?client_type=\(clientType)", headers: [("Content-Type", "application/json")],
            body: Array(body))
    }

    /// Signs a fresh browser in through the hosted page's form and returns the callback it was sent to.
    private func signInThroughPage(_ gatehouse: OAuthGatehouse, email: String, redirect: String = "yourapp://auth/callback")
        async throws -> String
    {
        let owner = gatehouse.browser()
        try await gatehouse.signUp(owner, email: email)
        let browser = gatehouse.browser()
        let page = try await browser.get(signInPath(redirect))
        #expect(page.status == 200)
        #expect(
            page.header("Content-Security-Policy")?.contains("form-action 'self' \(CallbackURL.cspSource(for: redirect) ?? "")")
                == true)
        let done = try await browser.post(
            "/auth/sign-in",
            [
                ("email", email), ("password", "correct horse battery"), ("redirect", redirect), ("client_type", "mobile"),
                ("code_challenge", Self.challenge), ("code_challenge_method", "S256")
            ])
        #expect(done.status == 303)
        return try #require(done.header("Location"))
    }

    @Test(arguments: [
        "//evil.com", "/\\evil.com", "https:evil.com", "https://app@evil.com", "https://app.com.evil.com/callback",
        "http://app.com/callback", "https://app.com:8443/callback", "javascript:alert(1)",
        "https://app.com/callback%0D%0ALocation:%20https://evil.com",
        "https://evil.com/callback", "yourapp://auth/callback/../evil"
    ])
    func refusesCallbacksOffTheAllowList(_ redirect: String) async throws {
        let gatehouse = try await setUp()
        let target =
            redirect.contains("%0D")
            ? "/auth/sign-in?redirect=\(redirect)&client_type=mobile&code_challenge=\(Self.challenge)"
            : signInPath(redirect)
        let response = try await gatehouse.browser().get(target, follow: false)
        #expect(response.status == 400)
        #expect(response.header("Location") == nil)
        await gatehouse.stop()
    }

    @Test func refusesPlainOrMissingPKCE() async throws {
        let gatehouse = try await setUp()
        let browser = gatehouse.browser()
        #expect(try await browser.get(signInPath("yourapp://auth/callback", method: "plain"), follow: false).status == 400)
        #expect(
            try await browser.get(signInPath("yourapp://auth/callback", challenge: Self.verifier, method: "plain"), follow: false)
                .status == 400)
        #expect(try await browser.get(signInPath("yourapp://auth/callback", challenge: nil), follow: false).status == 400)
        #expect(try await browser.get(signInPath("yourapp://auth/callback", method: "S256"), follow: false).status == 200)
        // redirect_to is accepted as the SDK's other spelling.
        let alias =
            "/auth/sign-in?"
            + FormEncoding.encode([
                ("redirect_to", "https://app.com/callback"), ("client_type", "web"),
                ("code_challenge", Self.challenge)
            ])
        #expect(try await browser.get(alias, follow: false).status == 200)
        await gatehouse.stop()
    }

    @Test func exchangesACodeOnceWithTheRightVerifier() async throws {
        let gatehouse = try await setUp()
        let callback = try await signInThroughPage(gatehouse, email: "app-user@example.com")
        #expect(callback.hasPrefix("yourapp://auth/callback?insforge_code="))
        let code = try #require(queryItem("insforge_code", in: callback))

        let wrong = try await exchange(gatehouse, code: code, verifier: String(Self.verifier.reversed()))
        #expect(wrong.status == 401)
        #expect(wrong.json["error"] as? String == "AUTH_INVALID_CODE_VERIFIER")
        // The failed attempt spent the code: the right verifier now gets nothing either.
        #expect(try await exchange(gatehouse, code: code, verifier: Self.verifier).status == 401)

        let second = try #require(
            queryItem("insforge_code", in: try await signInThroughPage(gatehouse, email: "app-user2@example.com")))
        let good = try await exchange(gatehouse, code: second, verifier: Self.verifier)
        #expect(good.status == 200)
        let json = good.json
        #expect((json["user"] as? [String: Any])?["email"] as? String == "app-user2@example.com")
        // A JWT access token (SDKs refresh ahead of `exp`) that works on the InsForge API.
        let access = try #require(json["accessToken"] as? String)
        #expect(access.split(separator: ".").count == 3)
        let current = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/api/auth/sessions/current", headers: [("Authorization", "Bearer \(access)")])
        #expect(current.status == 200 && current.json["user"] != nil)
        #expect((json["refreshToken"] as? String) != nil)
        #expect(json["requireEmailVerification"] as? Bool == false)
        #expect(json["redirectTo"] as? String == "yourapp://auth/callback")
        let reuse = try await exchange(gatehouse, code: second, verifier: Self.verifier)
        #expect(reuse.status == 401)
        #expect(reuse.json["error"] as? String == "AUTH_INVALID_CODE")
        await gatehouse.stop()
    }

    @Test func insForgeOAuthViewGetsAnAuthURLForTheHostedProviderStart() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        let client = HTTPTestClient(port: gatehouse.port)
        let query = FormEncoding.encode([("redirect_uri", "yourapp://auth/callback"), ("code_challenge", Self.challenge)])
        let answer = try await client.request(
            "GET", "/api/auth/oauth/acme?" + query, headers: [("Authorization", "Bearer anon_key")])
        #expect(answer.status == 200, "\(answer.text)")
        let authURL = try #require(answer.json["authUrl"] as? String)
        let components = try #require(URLComponents(string: authURL))
        #expect(components.path == "/auth/oauth/acme")
        let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["redirect"] == "yourapp://auth/callback" && items["code_challenge"] == Self.challenge)
        // Opening it starts the provider flow (the built-in test provider's authorize page).
        let start = try await gatehouse.browser().get(pathAndQuery(authURL), follow: false)
        #expect(start.status == 303 && start.header("Location")?.hasPrefix("/_/test-idp/acme/authorize?") == true)
        // A redirect the app did not register, and an unknown provider, are refused in InsForge's shape.
        let evil = FormEncoding.encode([("redirect_uri", "https://evil.com/callback"), ("code_challenge", Self.challenge)])
        let refused = try await client.request("GET", "/api/auth/oauth/acme?" + evil)
        #expect(refused.status == 400 && refused.json["error"] as? String == "INVALID_INPUT")
        let unknown = try await client.request("GET", "/api/auth/oauth/nobody?" + query)
        #expect(unknown.status == 404 && unknown.json["statusCode"] as? Int == 404)
        await gatehouse.stop()
    }

    @Test func codesExpireAfterSixtySeconds() async throws {
        let gatehouse = try await setUp()
        let code = try #require(queryItem("insforge_code", in: try await signInThroughPage(gatehouse, email: "slow@example.com")))
        gatehouse.clock.advance(61)
        #expect(try await exchange(gatehouse, code: code, verifier: Self.verifier).status == 401)
        await gatehouse.stop()
    }

    @Test func legacyModePutsTokensOnTheCallbackAndIsMarkedUnsafe() async throws {
        let gatehouse = try await setUp(legacy: true)
        let owner = gatehouse.browser()
        try await gatehouse.signUp(owner, email: "old-sdk@example.com")
        // Signed in already: the page offers "Continue as …", and that click goes to the callback.
        let page = try await owner.get(signInPath("https://app.com/callback", clientType: "web", challenge: nil))
        #expect(page.text.contains("Continue as old-sdk@example.com"))
        let done = try await owner.post(
            "/auth/app/continue", [("redirect", "https://app.com/callback"), ("client_type", "web")])
        let location = try #require(done.header("Location"))
        #expect(location.hasPrefix("https://app.com/callback?access_token="))
        #expect(queryItem("email", in: location) == "old-sdk@example.com")
        #expect(queryItem("user_id", in: location) != nil)
        let apps = try await gatehouse.adminGet("/_/api/apps")
        #expect(apps.text.contains("\"unsafe\":true"))
        await gatehouse.stop()
    }

    @Test func registrationRefusesDangerousCallbackURLs() async throws {
        let gatehouse = try await setUp()
        try await gatehouse.admin("/_/api/apps", ["id": "bad", "name": "Bad", "callbackURLs": ["javascript://x/y"]], expect: 400)
        try await gatehouse.admin(
            "/_/api/apps", ["id": "bad2", "name": "Bad", "callbackURLs": ["https://u:p@app.com/cb"]], expect: 400)
        await gatehouse.stop()
    }

    @Test func aSampleAppCompletesTheRoundTrip() async throws {
        let gatehouseBox = MockHolder()
        let app = try LoopbackPeer { router in
            // The app's "Sign in" button: off to Gatehouse's hosted page with its PKCE challenge.
            router.get("/login") { request, _ in
                let callback = "http://127.0.0.1:\(request.headers["Host"]?.split(separator: ":").last ?? "")/callback"
                return .redirect(
                    to: "http://127.0.0.1:\(gatehouseBox.port)/auth/sign-in?"
                        + FormEncoding.encode([
                            ("redirect", callback), ("client_type", "web"), ("code_challenge", HostedSignInTests.challenge),
                            ("code_challenge_method", "S256")
                        ]))
            }
            // handleAuthCallback: exchange the code with the verifier the app kept.
            router.get("/callback") { request, _ in
                let code = request.query["insforge_code"] ?? ""
                let body = try JSONSerialization.data(withJSONObject: ["code": code, "code_verifier": HostedSignInTests.verifier])
                let answer = try await HTTPTestClient(port: gatehouseBox.port).request(
                    "POST", "/api/auth/oauth/exchange?client_type=web", headers: [("Content-Type", "application/json")],
                    body: Array(body))
                let json = answer.json
                guard answer.status == 200, let user = json["user"] as? [String: Any], let email = user["email"] as? String,
                    json["accessToken"] is String
                else { return .html("<p>Sign-in failed: \(answer.status)</p>", status: 401) }
                return .html("<p>Signed in as \(email)</p>")
            }
        }
        defer { Task { await app.stop() } }
        let callback = "http://127.0.0.1:\(app.port)/callback"
        let gatehouse = try await setUp(extraCallbacks: [callback])
        gatehouseBox.port = gatehouse.port
        try await gatehouse.signUp(gatehouse.browser(), email: "round-trip@example.com")

        let appClient = HTTPTestClient(port: app.port)
        let toGatehouse = try #require(try await appClient.request("GET", "/login").header("Location"))
        let browser = gatehouse.browser()
        let page = try await browser.get(pathAndQuery(toGatehouse))
        #expect(page.status == 200)
        let done = try await browser.post(
            "/auth/sign-in",
            [
                ("email", "round-trip@example.com"), ("password", "correct horse battery"), ("redirect", callback),
                ("client_type", "web"), ("code_challenge", Self.challenge), ("code_challenge_method", "S256")
            ])
        let back = try #require(done.header("Location"))
        #expect(back.hasPrefix(callback + "?insforge_code="))
        let landed = try await appClient.request("GET", pathAndQuery(back))
        #expect(landed.status == 200)
        #expect(landed.text.contains("Signed in as round-trip@example.com"))
        await gatehouse.stop()
    }
}
