import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// Descope's provider sign-in, present when provider sign-in is: `POST auth/oauth/authorize
/// ?provider=NAME&redirectUrl=URL` answers `{url}` — Gatehouse's own provider start (the hosted
/// flow the InsForge API uses), which checks the redirect against the registered apps' callbacks
/// and comes back to it with `?code=…` — and `POST auth/oauth/exchange {code}` trades the code for
/// JWTs. Descope's exchange sends no PKCE verifier, so the flow is bound to one only this server
/// knows: the code (single use, short-lived, sent only to a registered callback) is redeemable here
/// alone, never at InsForge's exchange.
struct DescopeOAuthRoutes: Sendable {
    let feature: OAuthFeature
    let api: DescopeAPI

    func register(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/oauth/authorize") { call in
            guard feature.backendSignsInWithProviders else { throw AuthError.notSupported(.externalSignIn) }
            let query = call.request.query
            guard let name = try query.single("provider"), !name.isEmpty else { throw DescopeAnswer.missing("provider") }
            guard let provider = try await feature.registry.provider(named: name),
                provider.mode == .live || feature.settings.testProviderEnabled
            else {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "No provider called \(name)")
            }
            // DescopeKit spells it redirectUrl, the Python SDK redirectURL.
            let redirect = try query.single("redirectUrl") ?? query.single("redirectURL") ?? ""
            let items = [
                ("redirect", redirect), ("client_type", "mobile"), ("code_challenge", PKCE.challenge(for: verifier)),
                ("code_name", "code")
            ]
            let app: AppSignInRequest
            do {
                app = try await AppSignInRequest.parse(Parameters(items), registry: feature.registry)
            } catch let refusal as AppSignInRequest.Refusal {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", refusal.message)
            }
            return try .json(["url": URLQuery.path("\(feature.settings.base)/auth/oauth/\(provider.name)", app.queryItems)])
        }
        api.on(&router, .post, "/v1/auth/oauth/exchange") { call in
            let code = try call.required("code")
            let codes = AppCodes(env: api.env.accounts, hasher: feature.hasher)
            guard case .redeemed(let record) = try await codes.redeem(code, verifier: verifier, request: call.request) else {
                throw AuthError.invalidCode
            }
            let session = try await codes.openSession(for: record, request: call.request)
            return try await api.signedIn(session, amr: ["oauth"], call: call, firstSeen: false)
        }
    }

    /// The PKCE verifier of every flow this API starts: a keyed hash only this server can make.
    private var verifier: String { feature.hasher.hex("descope-oauth-pkce-verifier") }
}
