import AuthCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Talks to real providers: discovery, the authorization URL, the code exchange (with the PKCE
/// verifier), id_token verification against the JWKS, and user info for plain OAuth 2.0.
public struct ProviderClient: Sendable {
    let http: HTTPFetch
    let cache: MetadataCache

    public init(http: HTTPFetch = .live, cacheLifetime: TimeInterval = 600) {
        self.http = http
        cache = MetadataCache(lifetime: cacheLifetime)
    }

    /// Endpoints from the configuration, completed by the issuer's discovery document for OIDC.
    public func endpoints(for configuration: ProviderConfiguration, now: Date) async throws -> ProviderEndpoints {
        let config = ProviderPresets.applying(to: configuration)
        if config.type == .oidc, let issuer = config.issuer,
            config.authorizationURL == nil || config.tokenURL == nil || config.jwksURL == nil
        {
            let discovered = try await endpoints(discoveredFrom: issuer, now: now)
            return ProviderEndpoints(
                issuer: issuer, authorizationURL: config.authorizationURL ?? discovered.authorizationURL,
                tokenURL: config.tokenURL ?? discovered.tokenURL,
                userInfoURL: config.userInfoURL ?? discovered.userInfoURL,
                jwksURL: config.jwksURL ?? discovered.jwksURL)
        }
        guard let authorization = config.authorizationURL, let token = config.tokenURL else {
            throw OAuthError.badConfiguration("provider \(config.name) has no endpoints")
        }
        return ProviderEndpoints(
            issuer: config.issuer, authorizationURL: authorization, tokenURL: token,
            userInfoURL: config.userInfoURL, jwksURL: config.jwksURL)
    }

    /// Endpoints exactly as the issuer's discovery document names them (no presets, no overrides).
    public func endpoints(discoveredFrom issuer: String, now: Date) async throws -> ProviderEndpoints {
        let document = try await cache.discovery(issuer: issuer, now: now) {
            var base = issuer
            while base.hasSuffix("/") { base.removeLast() }
            return try await http.json(DiscoveryDocument.self, from: base + "/.well-known/openid-configuration")
        }
        // OIDC Discovery §4.3: the document's issuer must be the one we asked about.
        guard document.issuer == issuer else { throw OAuthError.providerResponse("discovery issuer mismatch") }
        return ProviderEndpoints(
            issuer: issuer, authorizationURL: document.authorization_endpoint, tokenURL: document.token_endpoint,
            userInfoURL: document.userinfo_endpoint, jwksURL: document.jwks_uri)
    }

    /// The provider's authorization URL for one flow: code flow, PKCE S256, state and (OIDC) nonce.
    public func authorizationURL(
        _ configuration: ProviderConfiguration, endpoints: ProviderEndpoints, redirectURI: String,
        state: String, nonce: String, codeChallenge: String
    ) -> String {
        let config = ProviderPresets.applying(to: configuration)
        var items: [(String, String)] = [
            ("response_type", "code"), ("client_id", config.clientId),
            ("scope", config.scopes.joined(separator: " ")), ("state", state),
            ("code_challenge", codeChallenge), ("code_challenge_method", PKCE.method)
        ]
        if config.type == .oidc { items.append(("nonce", nonce)) }
        // Last, so PocketBase's SDKs can append their own redirect URL to one made with "" (`…&redirect_uri=`).
        items.append(("redirect_uri", redirectURI))
        let separator = endpoints.authorizationURL.contains("?") ? "&" : "?"
        return endpoints.authorizationURL + separator + FormEncoding.encode(items)
    }

    /// Exchanges the code and returns who signed in, after every id_token check for OIDC.
    public func identity(
        _ configuration: ProviderConfiguration, endpoints: ProviderEndpoints, code: String,
        redirectURI: String, codeVerifier: String, nonce: String, now: Date
    ) async throws -> ExternalIdentity {
        let config = ProviderPresets.applying(to: configuration)
        let tokens = try await exchange(
            config, endpoints: endpoints, code: code, redirectURI: redirectURI, codeVerifier: codeVerifier)
        if config.type == .oidc {
            guard let idToken = tokens.id_token else { throw OAuthError.providerResponse("no id_token in token response") }
            let checked = try await verify(idToken, config: config, endpoints: endpoints, nonce: .equals(nonce), now: now)
            return ExternalIdentity(
                provider: config.name, subject: checked.subject, email: checked.email,
                emailVerified: checked.emailVerified, name: checked.name, avatarURL: checked.picture)
        }
        guard let userInfoURL = endpoints.userInfoURL else { throw OAuthError.badConfiguration("no user info URL") }
        let info = try await http.json([String: JSONValue].self, from: userInfoURL, bearer: tokens.access_token)
        guard let identity = UserInfoMapping.identity(provider: config.name, info: info) else {
            throw OAuthError.providerResponse("user info without an id")
        }
        return identity
    }

    /// Verifies an id_token against the provider's JWKS, refetching once when the key is unknown (rotation).
    public func verify(
        _ token: String, config: ProviderConfiguration, endpoints: ProviderEndpoints,
        nonce: IDTokenVerifier.NonceRule, now: Date
    ) async throws -> IDToken {
        guard let jwksURL = endpoints.jwksURL, let issuer = endpoints.issuer else {
            throw OAuthError.badConfiguration("OIDC provider \(config.name) has no issuer or JWKS URL")
        }
        let verifier = IDTokenVerifier(issuer: issuer, audiences: [config.clientId])
        return try await verify(token, verifier: verifier, jwksURL: jwksURL, nonce: nonce, now: now)
    }

    /// Verifies with an explicit verifier (Sign in with Apple, native).
    public func verify(
        _ token: String, verifier: IDTokenVerifier, jwksURL: String, nonce: IDTokenVerifier.NonceRule,
        now: Date
    ) async throws -> IDToken {
        let fetch: @Sendable () async throws -> JSONWebKeySet = { try await http.json(JSONWebKeySet.self, from: jwksURL) }
        let keys = try await cache.keys(url: jwksURL, now: now, refresh: false, fetch)
        do {
            return try verifier.verify(token, keys: keys, nonce: nonce, now: now)
        } catch .unknownKey {
            let fresh = try await cache.keys(url: jwksURL, now: now, refresh: true, fetch)
            do { return try verifier.verify(token, keys: fresh, nonce: nonce, now: now) } catch {
                throw OAuthError.idToken(error)
            }
        } catch {
            throw OAuthError.idToken(error)
        }
    }

    private func exchange(
        _ config: ProviderConfiguration, endpoints: ProviderEndpoints, code: String, redirectURI: String,
        codeVerifier: String
    ) async throws -> TokenResponse {
        guard let url = URL(string: endpoints.tokenURL) else { throw OAuthError.badConfiguration("bad token URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", codeVerifier), ("client_id", config.clientId)
        ]
        if let secret = config.clientSecret, !secret.isEmpty { form.append(("client_secret", secret)) }
        request.httpBody = Data(FormEncoding.encode(form).utf8)
        let (status, body) = try await http.send(request)
        guard (200..<300).contains(status) else { throw OAuthError.providerHTTP(url: endpoints.tokenURL, status: status) }
        guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: body) else {
            throw OAuthError.providerResponse("unreadable token response")
        }
        return tokens
    }
}

/// RFC 6749 §5.1 token response (the fields Gatehouse reads).
struct TokenResponse: Decodable {
    var access_token: String
    var id_token: String?
}
