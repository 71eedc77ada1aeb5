import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// The built-in test provider's OIDC side, per test-mode provider NAME at issuer `BASE/_/test-idp/NAME`:
/// discovery, JWKS, the token endpoint (authorization code + PKCE S256, ES256 id_token) and user
/// info. Gatehouse's own callback redeems codes here over HTTP, like any live OIDC provider's.
struct TestIdentityProviderAPI: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }

    /// Lifetime of the id_token and the access token.
    static let tokenLifetime: TimeInterval = 3600

    func register(on router: inout Router) {
        router.get("/_/test-idp/:provider/.well-known/openid-configuration") { _, parameters in
            guard let provider = try await testProvider(parameters) else { return Self.notServed }
            let issuer = feature.testIssuer(provider: provider.name)
            return try .json(
                Discovery(
                    issuer: issuer, authorization_endpoint: issuer + "/authorize", token_endpoint: issuer + "/token",
                    userinfo_endpoint: issuer + "/userinfo", jwks_uri: issuer + "/jwks"))
        }
        router.get("/_/test-idp/:provider/jwks") { _, parameters in
            guard try await testProvider(parameters) != nil else { return Self.notServed }
            return try .json(feature.testSigner.jwks)
        }
        router.post("/_/test-idp/:provider/token") { request, parameters in
            guard let provider = try await testProvider(parameters) else { return Self.notServed }
            return try await token(request, provider: provider)
        }
        router.get("/_/test-idp/:provider/userinfo") { request, parameters in
            guard let provider = try await testProvider(parameters) else { return Self.notServed }
            return try userInfo(request, provider: provider)
        }
    }

    private func testProvider(_ parameters: PathParameters) async throws -> ProviderConfiguration? {
        guard feature.settings.testProviderEnabled,
            let provider = try await feature.registry.provider(named: try parameters.require("provider")),
            provider.mode == .test
        else { return nil }
        return provider
    }

    private func token(_ request: Request, provider: ProviderConfiguration) async throws -> Response {
        let form = try request.form()
        guard try form.single("grant_type") == "authorization_code" else {
            return Self.error(400, "unsupported_grant_type", "Only authorization_code is supported.")
        }
        guard let code = try form.single("code"), !code.isEmpty else {
            return Self.error(400, "invalid_request", "code is missing.")
        }
        let grant: TestIdentityGrant
        do {
            grant = try await TestIdentityProvider(env: env.accounts, hasher: feature.hasher)
                .redeem(
                    provider: provider.name, code: code, redirectURI: try form.single("redirect_uri") ?? "",
                    codeVerifier: try form.single("code_verifier") ?? "")
        } catch let refusal as TestIdentityProvider.Refusal {
            return Self.error(400, "invalid_grant", refusal.description)
        }
        // The code was spent above; a wrong client learns nothing and cannot retry.
        guard try form.single("client_id") == provider.clientId else {
            return Self.error(401, "invalid_client", "client_id does not match the provider's client.")
        }
        let now = env.clock()
        let issuer = feature.testIssuer(provider: provider.name)
        let identity = grant.identity
        var person: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(identity.subject), "email": .string(identity.email),
            "email_verified": .bool(identity.emailVerified),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(now.addingTimeInterval(Self.tokenLifetime).timeIntervalSince1970.rounded(.down))
        ]
        if let name = identity.name { person["name"] = .string(name) }
        var idClaims = person
        idClaims["aud"] = .string(provider.clientId)
        idClaims["nonce"] = .string(grant.nonce)
        var accessClaims = person
        accessClaims["aud"] = .string(issuer + "/userinfo")
        accessClaims["token_use"] = .string("access")
        var response = try Response.json(
            Tokens(
                access_token: try feature.testSigner.sign(accessClaims), token_type: "Bearer",
                expires_in: Int(Self.tokenLifetime), id_token: try feature.testSigner.sign(idClaims)))
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    private func userInfo(_ request: Request, provider: ProviderConfiguration) throws -> Response {
        let issuer = feature.testIssuer(provider: provider.name)
        guard let token = request.bearerToken, let claims = feature.testSigner.claims(of: token),
            claims["iss"]?.stringValue == issuer, claims["token_use"]?.stringValue == "access",
            claims["aud"]?.stringValue == issuer + "/userinfo",
            case .number(let exp)? = claims["exp"], exp > env.clock().timeIntervalSince1970
        else {
            var refused = Self.error(401, "invalid_token", "The access token is missing, expired or not this provider's.")
            refused.headers.replaceOrAdd("WWW-Authenticate", #"Bearer error="invalid_token""#)
            return refused
        }
        return try .json(claims.filter { ["sub", "email", "email_verified", "name"].contains($0.key) })
    }

    private static var notServed: Response {
        error(404, "not_found", "This provider is not in test mode or the test provider is switched off.")
    }

    private static func error(_ status: Int, _ code: String, _ description: String) -> Response {
        var response =
            (try? Response.json(["error": code, "error_description": description], status: status))
            ?? .json(raw: #"{"error":"server_error"}"#, status: 500)
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    private struct Discovery: Encodable {
        var issuer: String
        var authorization_endpoint: String
        var token_endpoint: String
        var userinfo_endpoint: String
        var jwks_uri: String
        var response_types_supported = ["code"]
        var grant_types_supported = ["authorization_code"]
        var subject_types_supported = ["public"]
        var scopes_supported = ["openid", "email", "profile"]
        var code_challenge_methods_supported = ["S256"]
        var id_token_signing_alg_values_supported = ["ES256"]
        var token_endpoint_auth_methods_supported = ["none", "client_secret_post"]
        var claims_supported = ["iss", "sub", "aud", "exp", "iat", "nonce", "email", "email_verified", "name"]
    }

    private struct Tokens: Encodable {
        var access_token: String
        var token_type: String
        var expires_in: Int
        var id_token: String
    }
}
