import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Descope's provider sign-in, present when provider sign-in is: `POST auth/oauth/authorize
/// ?provider=NAME&redirectUrl=URL` answers `{url}` — Gatehouse's own provider start (the hosted
/// flow the InsForge API uses), which checks the redirect against the registered apps' callbacks
/// and comes back to it with `?code=…` — and `POST auth/oauth/exchange {code}` trades the code for
/// JWTs. Descope's exchange sends no PKCE verifier, so each flow is bound to a random one the
/// server keeps with it (`AppCodes.challengeWithKeptVerifier`): the code (single use, short-lived,
/// sent only to a registered callback) is redeemable here alone, never at InsForge's exchange.
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
            // The challenge of a verifier made for this flow and kept by the server (the app sends none).
            let challenge = try await AppCodes(env: api.env.accounts, hasher: feature.hasher).challengeWithKeptVerifier()
            let items = [("redirect", redirect), ("client_type", "mobile"), ("code_challenge", challenge), ("code_name", "code")]
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
            guard case .redeemed(let record) = try await codes.redeemWithKeptVerifier(code, request: call.request) else {
                throw AuthError.invalidCode
            }
            let session = try await codes.openSession(for: record, request: call.request)
            return try await api.signedIn(session, amr: ["oauth"], call: call, firstSeen: false)
        }
        registerNative(on: &router)
    }

    /// Sign in with Apple in the app (DescopeKit's `oauth.native`): `start` gives the nonce the app
    /// hands Apple and a state naming it; `finish` checks Apple's identity token (`implicit`: the app
    /// sends the token, never an authorization code) with that nonce, through `IDTokenSignIn`.
    private func registerNative(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/oauth/native/start") { call in
            try Self.requireApple(call)
            let clientID = await IDTokenSignIn(feature: feature, via: DescopeAPI.via).audiences(.apple).sorted().first
            guard let clientID else { throw Self.appleNotConfigured }
            let nonce = SecureRandom.token()
            return try .json(
                NativeStart(
                    clientId: clientID,
                    stateId: try api.tokens.state(Self.nativeState, ["nonce": .string(nonce)], project: call.project),
                    nonce: nonce,
                    implicit: true))
        }
        api.on(&router, .post, "/v1/auth/oauth/native/finish") { call in
            try Self.requireApple(call)
            guard
                let nonce = api.tokens.state(Self.nativeState, try call.required("stateId"), project: call.project)?["nonce"]?
                    .stringValue
            else {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "stateId is unknown or out of date")
            }
            let token = try call.required("idToken")
            switch try await IDTokenSignIn(feature: feature, via: DescopeAPI.via).signIn(
                token, provider: .apple, nonce: .equals(nonce), name: Self.appleName(try call.text("user")),
                request: call.request)
            {
            case .signIn(let result, _, _): return try await api.answer(result, amr: ["oauth"], call: call)
            case .refused:
                throw DescopeAnswer(
                    401, DescopeCode.invalidRequest, "Unauthorized", "The Apple identity token could not be verified")
            case .conflict(let message): throw DescopeAnswer(409, DescopeCode.userExists, "Conflict", message)
            case .notConfigured: throw Self.appleNotConfigured
            }
        }
    }

    /// The `drn` of a native sign-in's state (the nonce it gave the app).
    private static let nativeState = "native-state"

    private static let appleNotConfigured = DescopeAnswer(
        400, DescopeCode.invalidArguments, "Invalid arguments", "Sign in with Apple needs --apple-audience BUNDLE_ID")

    private static func requireApple(_ call: DescopeAPI.Call) throws {
        guard try call.required("provider") == "apple" else {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "Only apple signs in natively")
        }
    }

    /// The name in DescopeKit's `user` (`{"name": {"firstName", "middleName", "lastName"}}` as a
    /// JSON string), which Apple sends only on the first authorization.
    private static func appleName(_ user: String?) -> String? {
        guard let data = user?.data(using: .utf8),
            case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: data),
            case .object(let name)? = fields["name"]
        else { return nil }
        let parts = ["firstName", "middleName", "lastName"].compactMap { name[$0]?.stringValue }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : String(parts.joined(separator: " ").prefix(200))
    }
}

/// `oauth/native/start`'s answer, as DescopeKit decodes it.
private struct NativeStart: Encodable {
    var clientId: String
    var stateId: String
    var nonce: String
    var implicit: Bool
}
