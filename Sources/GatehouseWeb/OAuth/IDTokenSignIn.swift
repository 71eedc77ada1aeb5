import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// Sign-in with an ID token a native SDK got from Apple or Google, whichever API carries it
/// (InsForge's `apple/native` and `id-token`, Descope's `oauth/native/finish`): the signature
/// against the provider's JWKS, its issuer, an audience Gatehouse was told to accept (never one
/// the caller names), expiry and issue time, the nonce; then each token signs in once (named by its
/// claims, `IDToken.replayKey`, kept until it expires — never by its text, which has other
/// spellings), and the provider identity signs in, links or
/// creates the account as provider sign-in on the pages does. Each API renders the outcome.
struct IDTokenSignIn: Sendable {
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

    /// What the token came to.
    enum Outcome: Sendable {
        /// The provider vouched for the person: signed in, or the second step the account owes, how
        /// the identity came to the account (`.created` for a new one), and who it is at the provider.
        case signIn(SignInResult, ExternalSignIn.Outcome?, subject: String)
        /// The token could not be verified, or was used before (the reason is in the audit trail).
        case refused
        /// The identity may not sign in to, or create, the account it names.
        case conflict(message: String)
        /// No client id is configured as the provider's audience.
        case notConfigured
    }

    let feature: OAuthFeature
    /// Names the front-end in the audit data.
    let via: String
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

    /// Verifies `token` and signs its identity in; `name` names an account it creates.
    func signIn(
        _ token: String, provider: Provider, nonce: IDTokenVerifier.NonceRule, name: String?, request: Request
    ) async throws -> Outcome {
        guard feature.backendSignsInWithProviders else { throw AuthError.notSupported(.externalSignIn) }
        let audiences = await audiences(provider)
        guard !audiences.isEmpty else { return .notConfigured }
        let providerSignIn = ProviderSignIn(env: env.accounts, via: via)
        let verified: IDToken
        let leeway: TimeInterval
        do {
            (verified, leeway) = try await verify(token, provider: provider, audiences: audiences, nonce: nonce)
        } catch {
            await providerSignIn.failed(provider: provider.rawValue, reason: OAuthPages.reason(error), request: request)
            return .refused
        }
        let tokenID = feature.hasher.hex("\(provider.rawValue)-token:" + verified.replayKey)
        guard try await providerSignIn.spendToken(idHash: tokenID, expiresAt: verified.expiresAt.addingTimeInterval(leeway))
        else {
            await providerSignIn.failed(provider: provider.rawValue, reason: "token_replayed", request: request)
            return .refused
        }
        let identity = ExternalIdentity(
            provider: provider.rawValue, subject: verified.subject, email: verified.email,
            emailVerified: verified.emailVerified, name: name ?? verified.name)
        let signIn = try await providerSignIn.attempt(identity, allowCreate: feature.settings.allowSignUp, request: request)
        switch signIn.result {
        case .refused(.provider(let error)):
            let config = ProviderConfiguration(name: provider.rawValue, type: .oidc, clientId: "")
            return .conflict(message: OAuthPages.message(error, provider: config))
        case .refused(let refusal): throw refusal.error
        case .signedIn, .secondStep: return .signIn(signIn.result, signIn.outcome, subject: identity.subject)
        }
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
