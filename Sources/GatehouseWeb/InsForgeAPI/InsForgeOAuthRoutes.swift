import AuthCore
import Foundation
import HTTPServer
import OAuth
import Store

/// The InsForge API's provider routes, present when provider sign-in is: `GET
/// /api/auth/oauth/{provider}` (→ `{authUrl}`), `POST /api/auth/oauth/exchange` (the one-time
/// `insforge_code` + PKCE verifier → session) and `POST /api/auth/apple/native`.
struct InsForgeOAuthRoutes: Sendable {
    let feature: OAuthFeature
    let api: InsForgeAPI
    var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        api.on(&router, .get, "/api/auth/oauth/:provider", authURL)
        api.on(&router, .post, "/api/auth/oauth/exchange", exchange)
        api.on(&router, .post, "/api/auth/apple/native", appleNative)
    }

    /// Where the app sends the person (`signInWithOAuthView`): Gatehouse's own provider start with the
    /// app's redirect and PKCE challenge, which checks the redirect against the app's registered
    /// callbacks, runs the provider flow, and returns to the app with `insforge_code`.
    private func authURL(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        let name = try parameters.require("provider")
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
            app = try await AppSignInRequest.parse(Parameters(items), database: env.database)
        } catch let refusal as AppSignInRequest.Refusal {
            throw InsForgeAnswer(400, "INVALID_INPUT", refusal.message)
        }
        return try .json(["authUrl": URLQuery.path("\(feature.settings.base)/auth/oauth/\(provider.name)", app.queryItems)])
    }

    private func exchange(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try request.decodeJSON(ExchangeBody.self)
        let now = env.clock()
        // Spent on the first attempt, right or wrong: a guessed verifier gets one try (RFC 6749 §4.1.2).
        guard let code = try await env.database.consumeAppCode(codeHash: feature.hasher.hex(body.code), at: now) else {
            return InsForgeError.response(401, "AUTH_INVALID_CODE", "The code is unknown, expired or already used.")
        }
        guard PKCE.verify(verifier: body.code_verifier, challenge: code.codeChallenge) else {
            await env.audit.record(
                .appExchangeFailed, subject: code.userID.rawValue, request: request,
                data: ["app": .string(code.appID), "reason": "pkce"])
            return InsForgeError.response(
                401, "AUTH_INVALID_CODE_VERIFIER", "The code verifier does not match the code challenge.")
        }
        let clientType = try request.query.single("client_type") ?? code.clientType
        guard clientType == code.clientType, let kind = ClientType(rawValue: clientType) else {
            return InsForgeError.response(400, "INVALID_INPUT", "client_type does not match the sign-in request.")
        }
        // The person signed in on Gatehouse's own page: the app gets a session of its own.
        let session = try await env.pageBackend.admin.openSession(for: code.userID)
        let tokens = try await api.tokens.issue(for: session, request: request)
        await env.audit.record(
            .appCodeExchanged, actor: session.user.id.rawValue, subject: session.user.id.rawValue, request: request,
            data: ["app": .string(code.appID)])
        return try await api.delivery.response(session.user, tokens: tokens, client: kind, redirectTo: code.callbackURL)
    }

    private func appleNative(_ request: Request, _: PathParameters) async throws -> Response {
        let body = try request.decodeJSON(AppleNativeBody.self)
        guard feature.backendSignsInWithProviders else {
            return InsForgeError.response(501, "NOT_SUPPORTED", AuthError.notSupported(.externalSignIn).pageMessage)
        }
        let backend = env.pageBackend
        let settings = feature.settings
        guard !settings.appleAudiences.isEmpty else {
            return InsForgeError.response(
                501, "APPLE_NOT_CONFIGURED", "Sign in with Apple has no audience (bundle id) configured.")
        }
        let verifier = IDTokenVerifier(issuer: "https://appleid.apple.com", audiences: settings.appleAudiences)
        let token: IDToken
        do {
            token = try await feature.client.verify(
                body.identityToken, verifier: verifier, jwksURL: settings.appleJWKSURL,
                nonce: .sha256Of(body.nonce), now: env.clock())
        } catch {
            await env.audit.record(
                .signInFailed, request: request,
                data: ["provider": "apple", "reason": .string(OAuthPages.reason(error))])
            return InsForgeError.response(401, "AUTH_INVALID_APPLE_TOKEN", "The Apple identity token could not be verified.")
        }
        // Each identity token signs in once: its `jti` (or, without one, the whole token) is kept
        // until the token expires, so a captured token cannot be replayed within its lifetime.
        let tokenID = feature.hasher.hex("apple-token:" + (token.tokenID.map { "jti:" + $0 } ?? body.identityToken))
        guard
            try await env.database.markTokenIDUsed(
                idHash: tokenID, expiresAt: token.expiresAt.addingTimeInterval(verifier.leeway), now: env.clock())
        else {
            await env.audit.record(
                .signInFailed, request: request, data: ["provider": "apple", "reason": "token_replayed"])
            return InsForgeError.response(401, "AUTH_INVALID_APPLE_TOKEN", "The Apple identity token could not be verified.")
        }
        // Apple sends the name only on the very first authorization; it is used only to create the account.
        let name = [body.user?.name?.firstName, body.user?.name?.lastName].compactMap { $0 }.joined(separator: " ")
        let identity = ExternalIdentity(
            provider: "apple", subject: token.subject, email: token.email,
            emailVerified: token.emailVerified, name: name.isEmpty ? nil : name)
        let result: ExternalSignIn
        do {
            result = try await backend.signIn(with: identity, allowCreate: settings.allowSignUp)
        } catch let error as ExternalAuthError {
            let config = ProviderConfiguration(name: "apple", type: .oidc, clientId: "")
            return InsForgeError.response(409, "AUTH_EXTERNAL_CONFLICT", OAuthPages.message(error, provider: config))
        }
        if result.outcome != .existingLink {
            await env.audit.record(
                .externalAuthLinked, actor: result.user.id.rawValue, subject: result.user.id.rawValue,
                request: request,
                data: [
                    "provider": "apple", "providerId": .string(token.subject),
                    "how": .string(result.outcome.rawValue)
                ])
        }
        let kind = try InsForgeDelivery.clientType(request)
        let tokens = try await api.tokens.issue(for: result.session, request: request)
        return try await api.delivery.response(result.user, tokens: tokens, client: kind)
    }
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
