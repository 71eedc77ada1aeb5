import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// PocketBase's OAuth2 code flow for apps that run it themselves (`authWithOAuth2Code`):
/// `auth-methods` lists each live provider with an `authURL` ending in `redirect_uri=` (the SDK
/// appends its own), a PKCE verifier and challenge and a `state`; the app sends the person there and
/// posts the code back to `auth-with-oauth2` with the verifier and its redirect URL. Gatehouse
/// exchanges the code and checks the id_token exactly as its own pages do, then signs in through
/// the seam. The OIDC nonce is derived from the verifier (a keyed hash), so no flow is stored.
/// Test-mode providers are left out: the built-in test provider serves Gatehouse's own callback only.
struct PocketBaseOAuth2: Sendable {
    let api: PocketBaseAPI
    let feature: OAuthFeature
    var env: PageEnvironment { api.env }
    private var providerSignIn: ProviderSignIn { ProviderSignIn(env: env.accounts, via: "pocketbase-api") }

    /// One provider as PocketBase's `auth-methods` lists it (only the keys its SDKs decode).
    struct ProviderInfo: Encodable {
        var name, displayName, state, authURL, codeVerifier, codeChallenge, codeChallengeMethod: String
    }

    func providers() async -> [ProviderInfo] {
        guard feature.backendSignsInWithProviders else { return [] }
        let live = ((try? await feature.registry.all()) ?? []).filter { $0.mode == .live }
        var listed: [ProviderInfo] = []
        for provider in live {
            guard let endpoints = try? await feature.client.endpoints(for: provider, now: env.clock()) else { continue }
            let verifier = SecureRandom.token()
            // A provider whose challenge cannot be made now is left out, as one whose endpoints cannot be read.
            guard let challenge = try? PKCE.challenge(for: verifier) else { continue }
            let state = SecureRandom.token()
            listed.append(
                ProviderInfo(
                    name: provider.name, displayName: provider.label, state: state,
                    authURL: feature.client.authorizationURL(
                        provider, endpoints: endpoints, redirectURI: "", state: state, nonce: nonce(for: verifier),
                        codeChallenge: challenge),
                    codeVerifier: verifier, codeChallenge: challenge, codeChallengeMethod: PKCE.method))
        }
        return listed
    }

    /// `auth-with-oauth2 {provider, code, codeVerifier, redirectURL|redirectUrl, createData}`.
    func signIn(_ request: Request, body: [String: JSONValue]) async throws -> Response {
        let redirect = PocketBaseAPI.text(body, "redirectURL") ?? PocketBaseAPI.text(body, "redirectUrl")
        var missing = PocketBaseAPI.required(body, ["provider", "code", "codeVerifier"])
        if (redirect ?? "").isEmpty { missing["redirectURL"] = .init(code: "validation_required", message: "Cannot be blank.") }
        guard missing.isEmpty else {
            throw PocketBaseAnswer(400, "An error occurred while validating the submitted data.", data: missing)
        }
        guard feature.backendSignsInWithProviders else { throw AuthError.notSupported(.externalSignIn) }
        let name = PocketBaseAPI.text(body, "provider") ?? ""
        guard let provider = try await feature.registry.provider(named: name), provider.mode == .live else {
            throw PocketBaseAnswer(
                400, "An error occurred while validating the submitted data.",
                data: [
                    "provider": .init(
                        code: "validation_invalid_provider", message: "Provider with name \(name) is missing or is not enabled.")
                ])
        }
        let verifier = PocketBaseAPI.text(body, "codeVerifier") ?? ""
        let identity: ExternalIdentity
        do {
            let endpoints = try await feature.client.endpoints(for: provider, now: env.clock())
            identity = try await feature.client.identity(
                provider, endpoints: endpoints, code: PocketBaseAPI.text(body, "code") ?? "", redirectURI: redirect ?? "",
                codeVerifier: verifier, nonce: nonce(for: verifier), now: env.clock())
        } catch {
            env.logger.notice("OAuth2 sign-in refused", metadata: ["provider": "\(name)", "error": "\(error)"])
            await providerSignIn.roundTripRefused(provider: name, reason: OAuthPages.reason(error), request: request)
            throw PocketBaseAnswer(400, "Failed to authenticate.")
        }
        let signIn = try await providerSignIn.attempt(identity, allowCreate: feature.settings.allowSignUp, request: request)
        let meta: JSONValue = .object([
            "id": .string(identity.subject), "email": .string(identity.email ?? ""), "name": .string(identity.name ?? ""),
            "avatarURL": .string(identity.avatarURL ?? ""), "isNew": .bool(signIn.outcome == .created)
        ])
        return try await PocketBaseAuthRoutes(api: api).answer(signIn.result, request: request, meta: meta) { refusal in
            guard case .provider(let error) = refusal else { return refusal.error }
            return PocketBaseAnswer(400, "Failed to authenticate. \(OAuthPages.message(error, provider: provider))")
        }
    }

    /// The OIDC nonce for a flow, bound to its verifier (which only the app and Gatehouse see).
    private func nonce(for verifier: String) -> String { feature.hasher.hex("pocketbase-oauth2-nonce:" + verifier) }
}
