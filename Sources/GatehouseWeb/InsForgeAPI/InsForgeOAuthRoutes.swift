import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth

/// The InsForge API's provider routes, present when provider sign-in is: `GET
/// /api/auth/oauth/{provider}` and `GET /api/auth/oauth/custom/{key}` (→ `{authUrl}`, the same for
/// any configured provider), `POST /api/auth/oauth/exchange` (the one-time
/// `insforge_code` + PKCE verifier → session), and ID-token sign-in: `POST /api/auth/apple/native`
/// and `POST /api/auth/id-token` (one path, `InsForgeIDTokenSignIn`).
struct InsForgeOAuthRoutes: Sendable {
    let feature: OAuthFeature
    let api: InsForgeAPI
    var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        api.on(&router, .get, "/api/auth/oauth/:provider") { request, parameters in
            try await authURL(request, provider: try parameters.require("provider"))
        }
        // The SDKs' `signInWithOAuthView(providerKey:)`: InsForge's custom providers are Gatehouse's
        // configured ones, so the key names any of them; a key outside InsForge's rule is its 400.
        api.on(&router, .get, "/api/auth/oauth/custom/:key") { request, parameters in
            let key = try parameters.require("key")
            guard key.wholeMatch(of: /[a-z0-9_-]{1,64}/) != nil else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "Invalid custom OAuth key")
            }
            return try await authURL(request, provider: key)
        }
        api.on(&router, .post, "/api/auth/oauth/exchange", exchange)
        api.on(&router, .post, "/api/auth/apple/native", appleNative)
        api.on(&router, .post, "/api/auth/id-token", idToken)
    }

    /// Where the app sends the person (`signInWithOAuthView`): Gatehouse's own provider start with the
    /// app's redirect and PKCE challenge, which checks the redirect against the app's registered
    /// callbacks, runs the provider flow, and returns to the app with `insforge_code`.
    private func authURL(_ request: Request, provider name: String) async throws -> Response {
        guard feature.backendSignsInWithProviders else { throw AuthError.notSupported(.externalSignIn) }
        guard let provider = try await feature.registry.provider(named: name),
            provider.mode == .live || feature.settings.testProviderEnabled
        else { throw InsForgeAnswer(404, "NOT_FOUND", "No sign-in provider called \(name) is configured.") }
        let query = request.query
        let redirect = try query.single("redirect_uri") ?? query.single("redirectTo") ?? query.single("redirect") ?? ""
        var items: [(String, String)] = [("redirect", redirect), ("client_type", try query.single("client_type") ?? "mobile")]
        if let challenge = try query.single("code_challenge") { items.append(("code_challenge", challenge)) }
        let app: AppSignInRequest
        do {
            app = try await AppSignInRequest.parse(Parameters(items), registry: feature.registry)
        } catch let refusal as AppSignInRequest.Refusal {
            throw InsForgeAnswer(400, "INVALID_INPUT", refusal.message)
        }
        return try .json(["authUrl": URLQuery.path("\(feature.settings.base)/auth/oauth/\(provider.name)", app.queryItems)])
    }

    private func exchange(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try request.decodeJSON(ExchangeBody.self)
        let codes = AppCodes(env: env.accounts, hasher: feature.hasher)
        let code: RedeemedAppCode
        switch try await codes.redeem(body.code, verifier: body.code_verifier, request: request) {
        case .unknown:
            return InsForgeError.response(401, "AUTH_INVALID_CODE", "The code is unknown, expired or already used.")
        case .wrongVerifier:
            return InsForgeError.response(
                401, "AUTH_INVALID_CODE_VERIFIER", "The code verifier does not match the code challenge.")
        case .redeemed(let redeemed):
            code = redeemed
        }
        let clientType = try request.query.single("client_type") ?? code.clientType
        guard clientType == code.clientType, let kind = ClientType(rawValue: clientType) else {
            return InsForgeError.response(400, "INVALID_INPUT", "client_type does not match the sign-in request.")
        }
        // The person signed in on Gatehouse's own page: the app gets a session of its own.
        let session = try await codes.openSession(for: code, request: request)
        let tokens = try await api.tokens.issue(for: session, request: request)
        return try await api.delivery.response(session.user, tokens: tokens, client: kind, redirectTo: code.callbackURL)
    }

    private func appleNative(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try request.decodeJSON(AppleNativeBody.self)
        // Apple sends the name only on the very first authorization; it is used only to create the account.
        let name = [body.user?.name?.firstName, body.user?.name?.lastName].compactMap { $0 }.joined(separator: " ")
        return try await InsForgeIDTokenSignIn(feature: feature, api: api).signIn(
            body.identityToken, provider: .apple, nonce: .sha256Of(body.nonce), name: name.isEmpty ? nil : name,
            request: request, refusal: ("AUTH_INVALID_APPLE_TOKEN", "The Apple identity token could not be verified."))
    }

    /// InsForge's `POST /api/auth/id-token`: `{provider: "google", token, nonce?}` or
    /// `{provider: "apple", token, nonce, name?}`. Apple's nonce is the raw one whose SHA-256 the app
    /// put in its request; Google's is the one the app passed (a Google token sent without a nonce
    /// must carry none).
    private func idToken(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try InsForgeAPI.object(request)
        guard let provider = InsForgeAPI.text(body, "provider").flatMap(InsForgeIDTokenSignIn.Provider.init(rawValue:)) else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "provider: send \"google\" or \"apple\".")
        }
        guard let token = InsForgeAPI.text(body, "token"), !token.isEmpty, token.utf8.count <= Self.maximumTokenBytes else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "token: send the provider's ID token.")
        }
        let nonce = try InsForgeAPI.optionalText(body, "nonce")?.trimmingCharacters(in: .whitespaces)
        if let nonce, !(1...255).contains(nonce.count) {
            throw InsForgeAnswer(400, "INVALID_INPUT", "nonce: send the raw nonce (1 to 255 characters).")
        }
        let rule: IDTokenVerifier.NonceRule
        switch (provider, nonce) {
        case (.apple, let raw?): rule = .sha256Of(raw)
        case (.apple, nil): throw InsForgeAnswer(400, "INVALID_INPUT", "nonce: Apple ID tokens need the raw nonce.")
        case (.google, let raw?): rule = .equals(raw)
        case (.google, nil): rule = .unbound
        }
        let name = try InsForgeAPI.optionalText(body, "name").flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        return try await InsForgeIDTokenSignIn(feature: feature, api: api).signIn(
            token, provider: provider, nonce: rule, name: name, request: request,
            refusal: ("AUTH_UNAUTHORIZED", "The ID token could not be verified."))
    }

    /// ID tokens are a few kilobytes; anything far larger is not one.
    static let maximumTokenBytes = 16 * 1024
}

private struct ExchangeBody: Decodable {
    var code: String
    var code_verifier: String
}

private struct AppleNativeBody: Decodable {
    struct AppleUser: Decodable {
        struct Name: Decodable {
            var firstName: String?
            var lastName: String?
        }
        var name: Name?
        var email: String?
    }
    var identityToken: String
    var authorizationCode: String?
    var user: AppleUser?
    var nonce: String
}
