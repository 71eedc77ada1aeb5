import AuthCore
import Foundation
import HTTPServer
import OAuth
import Store

/// InsForge-compatible endpoints for apps: `POST /api/auth/oauth/exchange` (the hosted page's
/// one-time code + PKCE verifier → session) and `POST /api/auth/apple/native`.
struct InsForgeAuthAPI: Sendable {
    let feature: OAuthFeature
    var env: PageEnvironment { feature.env }

    func register(on router: inout Router) {
        router.post("/api/auth/oauth/exchange", exchange)
        router.post("/api/auth/apple/native", appleNative)
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
        let user = try await env.backend.admin.user(code.userID)
        let tokens = try await feature.tokens.issue(for: user, clientType: kind, request: request)
        await env.audit.record(
            .appCodeExchanged, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: ["app": .string(code.appID)])
        return try .json(await authResponse(user, tokens: tokens, redirectTo: code.callbackURL))
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
            // The app gets tokens from `feature.tokens` (until the InsForge-API issue hands it the
            // backend's session), so the backend's own session is ended at once.
            try? await backend.signOut(result.session)
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
        let kind = ClientType(rawValue: try request.query.single("client_type") ?? "mobile") ?? .mobile
        let tokens = try await feature.tokens.issue(for: result.user, clientType: kind, request: request)
        return try .json(await authResponse(result.user, tokens: tokens, redirectTo: nil))
    }

    private func authResponse(_ user: User, tokens: IssuedTokens, redirectTo: String?) async -> AuthResponse {
        let providers = (try? await env.backend.admin.externalAuths(of: user.id).map(\.provider)) ?? []
        return AuthResponse(
            user: .init(
                id: user.id.rawValue, email: user.email, emailVerified: user.emailVerified,
                providers: providers, createdAt: user.createdAt, updatedAt: user.updatedAt,
                profile: user.profile, metadata: [:]),
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            requireEmailVerification: !user.emailVerified && env.backend.verificationMode != .none, redirectTo: redirectTo)
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

/// InsForge's auth response.
struct AuthResponse: Encodable {
    struct UserBody: Encodable {
        var id, email: String
        var emailVerified: Bool
        var providers: [String]
        var createdAt, updatedAt: Date
        var profile: Profile
        var metadata: [String: String]
    }
    var user: UserBody
    var accessToken: String
    var refreshToken: String?
    var requireEmailVerification: Bool
    var redirectTo: String?
}

/// InsForge's error envelope: `{"error", "message", "statusCode", "nextActions"}`.
enum InsForgeError {
    private struct Body: Encodable {
        var error: String
        var message: String
        var statusCode: Int
        var nextActions: String?
    }

    static func response(_ status: Int, _ code: String, _ message: String) -> Response {
        (try? .json(Body(error: code, message: message, statusCode: status), status: status)) ?? .text(message, status: status)
    }

    /// Everything under `/api/auth` that no handler answered itself: decode errors, unknown routes,
    /// wrong methods. `message` is always there (InsForge's Swift SDK needs it).
    static let renderer: Router.ErrorRenderer = { status, message, _ in
        response(status, APIError.code(for: status), message)
    }
}
