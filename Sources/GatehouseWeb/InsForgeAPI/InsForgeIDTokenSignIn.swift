import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// Sign-in with an ID token a native SDK got from Apple or Google — the one path behind both
/// `POST /api/auth/apple/native` and `POST /api/auth/id-token`: the signature against the
/// provider's JWKS, its issuer, an audience Gatehouse was told to accept (never one the caller
/// names), expiry and issue time, the nonce; then each token signs in once (its `jti`, or the
/// whole token, kept until it expires), and the provider identity signs in, links or creates the
/// account as provider sign-in on the pages does.
struct InsForgeIDTokenSignIn: Sendable {
    enum Provider: String, Sendable {
        case apple, google

        /// The issuers the provider signs as (Google uses two spellings).
        var issuers: [String] {
            switch self {
            case .apple: ["https://appleid.apple.com"]
            case .google: ["https://accounts.google.com", "accounts.google.com"]
            }
        }
    }

    let feature: OAuthFeature
    let api: InsForgeAPI
    var env: PageEnvironment { feature.env }

    /// The client ids accepted as `aud`: the configured ones (`--apple-audience`,
    /// `--google-audience`) and a live provider of the same name's client id.
    func audiences(_ provider: Provider) async -> Set<String> {
        var audiences = provider == .apple ? feature.settings.appleAudiences : feature.settings.googleAudiences
        if let configured = try? await feature.registry.provider(named: provider.rawValue), configured.mode == .live,
            !configured.clientId.isEmpty
        {
            audiences.insert(configured.clientId)
        }
        return audiences
    }

    /// Verifies `token` and answers with a session in InsForge's shape, or with `refusal` (401)
    /// whatever was wrong with the token — the reason goes to the audit trail only.
    func signIn(
        _ token: String, provider: Provider, nonce: IDTokenVerifier.NonceRule, name: String?, request: Request,
        refusal: (code: String, message: String)
    ) async throws -> Response {
        guard feature.backendSignsInWithProviders else { throw AuthError.notSupported(.externalSignIn) }
        let audiences = await audiences(provider)
        guard !audiences.isEmpty else {
            throw InsForgeAnswer(
                400, "PROVIDER_NOT_CONFIGURED",
                "\(provider.rawValue): no client id is configured for ID-token sign-in (--\(provider.rawValue)-audience).")
        }
        let providerSignIn = ProviderSignIn(env: env.accounts, via: "insforge-api")
        let refused = { (reason: String) async -> Response in
            await providerSignIn.failed(provider: provider.rawValue, reason: reason, request: request)
            return InsForgeError.response(401, refusal.code, refusal.message)
        }
        let verified: IDToken
        let leeway: TimeInterval
        do {
            (verified, leeway) = try await verify(token, provider: provider, audiences: audiences, nonce: nonce)
        } catch {
            return await refused(OAuthPages.reason(error))
        }
        let tokenID = feature.hasher.hex("\(provider.rawValue)-token:" + (verified.tokenID.map { "jti:" + $0 } ?? token))
        guard try await providerSignIn.spendToken(idHash: tokenID, expiresAt: verified.expiresAt.addingTimeInterval(leeway))
        else { return await refused("token_replayed") }
        let identity = ExternalIdentity(
            provider: provider.rawValue, subject: verified.subject, email: verified.email,
            emailVerified: verified.emailVerified, name: name ?? verified.name)
        let result: ExternalSignIn
        switch try await providerSignIn.attempt(identity, allowCreate: feature.settings.allowSignUp, request: request) {
        case .signedIn(let signedIn): result = signedIn
        // InsForge's SDK has no second step: the account's sign-in stops here.
        case .secondStep(let challenge): return InsForgeError.response(for: .mfaRequired(challenge))
        case .refused(let error):
            let config = ProviderConfiguration(name: provider.rawValue, type: .oidc, clientId: "")
            return InsForgeError.response(409, "AUTH_EXTERNAL_CONFLICT", OAuthPages.message(error, provider: config))
        }
        let kind = try InsForgeDelivery.clientType(request)
        let tokens = try await api.tokens.issue(for: result.session, request: request)
        return try await api.delivery.response(result.user, tokens: tokens, client: kind)
    }

    /// The verified token and the clock leeway it was checked with; tries each of the provider's issuers.
    private func verify(
        _ token: String, provider: Provider, audiences: Set<String>, nonce: IDTokenVerifier.NonceRule
    ) async throws -> (IDToken, TimeInterval) {
        let jwksURL = provider == .apple ? feature.settings.appleJWKSURL : feature.settings.googleJWKSURL
        var lastError: any Error = OAuthError.idToken(.wrongIssuer)
        for issuer in provider.issuers {
            let verifier = IDTokenVerifier(issuer: issuer, audiences: audiences)
            do {
                let verified = try await feature.client.verify(
                    token, verifier: verifier, jwksURL: jwksURL, nonce: nonce, now: env.clock())
                return (verified, verifier.leeway)
            } catch OAuthError.idToken(.wrongIssuer) {
                continue
            } catch {
                lastError = error
                break
            }
        }
        throw lastError
    }
}
