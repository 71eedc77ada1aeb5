import AuthCore
import Foundation
import HTTPTestClient
import OAuth
import Secrets
import SystemCrypto
import TestScope
import Testing

/// The FDI's thirdparty recipe: the code round trip through a frontend's own callback page (here
/// with the built-in test provider, an OIDC provider Gatehouse serves), native Google and Apple ID
/// tokens checked against the provider's JWKS, and Apple's form post sent on to the frontend.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIThirdPartyTests {
    static let website = "http://app.example"
    static let callback = website + "/auth/callback/acme"
    static let googleClient = "1234-web.apps.googleusercontent.com"
    static let password = "Correct-horse-battery-9"

    private func gatehouse(verification: VerificationMode = .none, googleJWKS: String = "http://127.0.0.1:1/none")
        async throws -> OAuthGatehouse
    {
        let gatehouse = try await OAuthGatehouse(
            verification: verification, googleJWKSURL: googleJWKS, googleAudiences: [Self.googleClient],
            superTokensWebsiteURL: Self.website)
        try await gatehouse.admin("/_/api/providers", ["name": "acme", "type": "oidc", "mode": "test", "clientId": "t"])
        return gatehouse
    }

    /// `authorisationurl`, then the person at the test provider's chooser as `email`: the code and
    /// state the provider sends to the frontend's callback page, and the verifier to send back.
    private func roundTrip(_ gatehouse: OAuthGatehouse, _ app: FDIScript, email: String, subject: String) async throws
        -> (code: String, state: String, verifier: String)
    {
        let query = FormEncoding.encode([("thirdPartyId", "acme"), ("redirectURIOnProviderDashboard", Self.callback)])
        let started = try await app.call("GET", "/auth/authorisationurl?" + query, rid: "thirdparty")
        let url = try #require(started.json["urlWithQueryParams"] as? String, "\(started.json)")
        let verifier = try #require(started.json["pkceCodeVerifier"] as? String)
        let choice = [("action", "add"), ("email", email), ("name", "Robin"), ("subject", subject), ("email_verified", "on")]
        let target = try await gatehouse.testProviderReturn(pathAndQuery(url) + "&state=frontend-state", choosing: choice)
        #expect(target.hasPrefix(Self.callback + "?"), "\(target)")
        return (try #require(queryItem("code", in: target)), try #require(queryItem("state", in: target)), verifier)
    }

    private func signInUp(_ app: FDIScript, code: String, state: String, verifier: String) async throws
        -> (status: Int, json: [String: Any], response: TestResponse)
    {
        try await app.call(
            "POST", "/auth/signinup",
            [
                "thirdPartyId": "acme",
                "redirectURIInfo": [
                    "redirectURIOnProviderDashboard": Self.callback, "redirectURIQueryParams": ["code": code, "state": state],
                    "pkceCodeVerifier": verifier
                ]
            ], rid: "thirdparty")
    }

    /// Authorisation URL → the provider → the frontend's page → `signinup`: a new account and a
    /// session; the code cannot be spent twice; `loginmethods` lists the provider.
    @Test func theCodeRoundTripSignsUpThroughTheFrontendsPage() async throws {
        let gatehouse = try await gatehouse()
        let app = FDIScript(port: gatehouse.port)
        let (code, state, verifier) = try await roundTrip(gatehouse, app, email: "robin@example.com", subject: "robin-1")
        #expect(state == "frontend-state", "the frontend's own state comes back to it")
        let signedIn = try await signInUp(app, code: code, state: state, verifier: verifier)
        #expect(
            signedIn.json["status"] as? String == "OK" && signedIn.json["createdNewRecipeUser"] as? Bool == true,
            "\(signedIn.json)")
        let user = try #require(signedIn.json["user"] as? [String: Any])
        #expect(user["emails"] as? [String] == ["robin@example.com"])
        let method = (user["loginMethods"] as? [[String: Any]])?.first
        #expect(method?["recipeId"] as? String == "thirdparty")
        #expect((method?["thirdParty"] as? [String: Any])?["userId"] as? String == "robin-1")
        #expect(app.accessToken != nil && app.refreshToken != nil)
        #expect(((app.front["up"] as? [String: Any])?["st-mfa"] as? [String: Any])?["v"] as? Bool == true)
        #expect(try await app.refresh().status == 200)

        let again = try await signInUp(FDIScript(port: gatehouse.port), code: code, state: state, verifier: verifier)
        #expect(again.json["status"] as? String == "GENERAL_ERROR", "a spent code: \(again.json)")
        let methods = try await app.call("GET", "/auth/loginmethods", rid: "multitenancy")
        let thirdParty = try #require(methods.json["thirdParty"] as? [String: Any])
        #expect(
            thirdParty["enabled"] as? Bool == true && (methods.json["firstFactors"] as? [String])?.contains("thirdparty") == true)
    }

    /// The code is bound to the verifier its URL was made with: another verifier gets no session.
    @Test func aCodeWithAnotherVerifierIsRefused() async throws {
        let gatehouse = try await gatehouse()
        let app = FDIScript(port: gatehouse.port)
        let (code, state, _) = try await roundTrip(gatehouse, app, email: "sky@example.com", subject: "sky-1")
        let refused = try await signInUp(app, code: code, state: state, verifier: SecureRandom.token())
        #expect(refused.json["status"] as? String == "GENERAL_ERROR" && app.accessToken == nil, "\(refused.json)")
    }

    /// The test provider sends codes only to pages of the frontends Gatehouse serves.
    @Test func theTestProviderSendsNoCodeToAnotherSite() async throws {
        let gatehouse = try await gatehouse()
        let app = FDIScript(port: gatehouse.port)
        let started = try await app.call(
            "GET", "/auth/authorisationurl?thirdPartyId=acme&redirectURIOnProviderDashboard=https%3A%2F%2Fevil.example%2Fcb",
            rid: "thirdparty")
        let url = try #require(started.json["urlWithQueryParams"] as? String)
        let page = try await gatehouse.browser().get(pathAndQuery(url) + "&state=s")
        #expect(page.status == 404, "the chooser refuses the request: \(page.status)")
    }

    /// Account pre-hijacking, as every way in meets it: someone signs up through the FDI with
    /// another person's address and a password of their own (an unproven account, holding a
    /// session). When the owner signs in with Google, which vouches for the address, the account
    /// is theirs: the squatter's password and session end. An unsigned token is never trusted, and
    /// the test provider's word reaches no existing account at all.
    @Test func aProviderSignInEndsWhatAnUnprovenAccountHeld() async throws {
        let key = try RSA.SigningKey(bits: 2048)
        let jwks = try JSONEncoder().encode(
            JSONWebKeySet(keys: [
                JSONWebKey(
                    kty: "RSA", kid: "g", use: "sig", alg: "RS256", n: Base64URL.encode(key.publicKey.modulus),
                    e: Base64URL.encode(key.publicKey.exponent))
            ]))
        let peer = try LoopbackPeer { router in router.get("/certs") { _, _ in .json(raw: Array(jwks)) } }
        let gatehouse = try await gatehouse(verification: .link, googleJWKS: "http://127.0.0.1:\(peer.port)/certs")
        let squatter = FDIScript(port: gatehouse.port)
        #expect(try await squatter.emailPassword("signup", "grace@gmail.example", Self.password).status == 200)

        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": "https://accounts.google.com", "aud": Self.googleClient, "sub": "google-grace", "email": "grace@gmail.example",
            "email_verified": true, "iat": now, "exp": now + 600
        ]
        let owner = FDIScript(port: gatehouse.port)
        let unsigned = try await owner.call(
            "POST", "/auth/signinup", ["thirdPartyId": "google", "oAuthTokens": ["id_token": try Self.unsigned(claims)]],
            rid: "thirdparty")
        #expect(unsigned.json["status"] as? String == "GENERAL_ERROR" && owner.accessToken == nil, "\(unsigned.json)")

        let signedIn = try await owner.call(
            "POST", "/auth/signinup", ["thirdPartyId": "google", "oAuthTokens": ["id_token": try Self.token(claims, key)]],
            rid: "thirdparty")
        #expect(signedIn.json["status"] as? String == "OK" && signedIn.json["createdNewRecipeUser"] as? Bool == false)
        #expect(owner.accessToken != nil, "\(signedIn.json)")
        let identity = ((signedIn.json["user"] as? [String: Any])?["thirdParty"] as? [[String: Any]])?.first
        #expect(identity?["id"] as? String == "google" && identity?["userId"] as? String == "google-grace")
        let stale = try await squatter.call("GET", "/auth/user/email/verify", rid: "emailverification")
        #expect(stale.status == 401, "the squatter's session ended: \(stale.json)")
        let password = try await FDIScript(port: gatehouse.port).emailPassword("signin", "grace@gmail.example", Self.password)
        #expect(
            password.json["status"] as? String == "WRONG_CREDENTIALS_ERROR", "the squatter's password ended: \(password.json)")

        // The test provider vouches for nothing: its identity with the address is refused.
        let app = FDIScript(port: gatehouse.port)
        let (code, state, verifier) = try await roundTrip(gatehouse, app, email: "grace@gmail.example", subject: "grace-test")
        let refused = try await signInUp(app, code: code, state: state, verifier: verifier)
        #expect(refused.json["status"] as? String == "SIGN_IN_UP_NOT_ALLOWED" && app.accessToken == nil, "\(refused.json)")
    }

    /// Apple's form post goes on to the frontend's page the state names, and nowhere else.
    @Test func applesFormPostGoesOnToTheFrontendOnly() async throws {
        let gatehouse = try await gatehouse()
        func post(_ target: String) async throws -> TestResponse {
            let state = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: ["frontendRedirectURI": target])))
            return try await HTTPTestClient(port: gatehouse.port).request(
                "POST", "/auth/callback/apple", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(FormEncoding.encode([("code", "c0de"), ("state", state)]).utf8))
        }
        let sent = try await post(Self.website + "/auth/callback/apple")
        #expect(
            sent.status == 303
                && sent.header("Location")?.hasPrefix(Self.website + "/auth/callback/apple?code=c0de&state=") == true)
        #expect(try await post("https://evil.example/steal").status == 400)
    }

    private static func token(_ claims: [String: Any], _ key: RSA.SigningKey) throws -> String {
        let input = try encoded(["alg": "RS256", "kid": "g", "typ": "JWT"]) + "." + encoded(claims)
        return input + "." + Base64URL.encode(try key.pkcs1v15SHA256Signature(for: Array(input.utf8)))
    }

    private static func unsigned(_ claims: [String: Any]) throws -> String {
        try encoded(["alg": "none", "kid": "g", "typ": "JWT"]) + "." + encoded(claims) + "."
    }

    private static func encoded(_ object: [String: Any]) throws -> String {
        Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }
}
