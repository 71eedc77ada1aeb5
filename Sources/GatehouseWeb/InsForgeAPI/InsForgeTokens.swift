import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Tokens handed to an app on InsForge's SDKs.
struct IssuedTokens: Sendable {
    var accessToken: String
    var refreshToken: String
}

/// InsForge-style tokens: a JWT access token (HS256 with `sub`, `email`, `role: "authenticated"`,
/// `iat`, `exp` — SDKs refresh ahead of `exp` — and `sid`) and an opaque refresh token that rotates
/// on every use; a rotated one presented again ends the session. `sid` is the token of a
/// `SessionBindings` row bound to the backend's session, so app sessions list, revoke and audit like
/// browser sessions and die with the backend session.
struct InsForgeTokens: Sendable {
    static let accessLifetime: TimeInterval = 15 * 60
    /// InsForge's refresh cookie lives 7 days; so does a session family here.
    static let refreshLifetime: TimeInterval = 7 * 24 * 3600

    struct Claims: Codable, Sendable {
        var sub: String
        var email: String
        var role: String
        var iat: Int
        var exp: Int
        var sid: String
    }

    let env: PageEnvironment
    let signer: HS256Token

    /// The rows behind the tokens.
    var sessions: AppSessions { AppSessions(env: env.accounts, kind: .insForgeAPI) }

    /// A token pair on a new session row for the backend session `session`.
    func issue(for session: AuthSession, request: Request) async throws -> IssuedTokens {
        let (sid, refreshToken) = try await sessions.openRefreshable(session, request: request, lifetime: Self.accessLifetime)
        return IssuedTokens(accessToken: accessToken(for: session.user, sid: sid), refreshToken: refreshToken)
    }

    /// The signed-in caller behind `Authorization: Bearer <access token>`; nil for anything else
    /// (no header, the app's anon key, an expired or revoked token).
    func signedIn(_ request: Request) async -> SignedIn? {
        guard let token = request.bearerToken, let payload = signer.verify(token),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload),
            claims.exp > Int(env.accounts.clocks.now(forAccount: claims.sub).timeIntervalSince1970),
            let signedIn = await sessions.current(token: claims.sid),
            signedIn.user.id.rawValue == claims.sub
        else { return nil }
        return signedIn
    }

    /// Whether `token` is one of this API's access tokens (signed here), valid or not: such a
    /// bearer is never taken for an app's anon key.
    func isAccessToken(_ token: String) -> Bool { signer.verify(token) != nil }

    /// A new pair for a current refresh token; `.sessionExpired` for an unknown, expired or
    /// revoked one, and for a reused one (which also ends its session).
    func refresh(_ refreshToken: String) async throws -> (IssuedTokens, User) {
        switch try await sessions.rotate(
            refreshToken: refreshToken, lifetime: Self.accessLifetime, familyLifetime: Self.refreshLifetime)
        {
        case .rotated(let sid, let newRefresh):
            guard let signedIn = await sessions.current(token: sid) else {
                throw AuthError.sessionExpired
            }
            return (IssuedTokens(accessToken: accessToken(for: signedIn.user, sid: sid), refreshToken: newRefresh), signedIn.user)
        case .reused:
            env.logger.warning("a rotated InsForge-API refresh token was presented again; its session is revoked")
            throw AuthError.sessionExpired
        case .refused:
            throw AuthError.sessionExpired
        }
    }

    /// The CSRF token a web client sends back (`X-CSRF-Token`) beside its refresh cookie: a MAC of
    /// the refresh token, so it changes with every rotation and needs no storage.
    func csrfToken(for refreshToken: String) -> String {
        String(signer.sign(payload: Data(("csrf:" + refreshToken).utf8)).split(separator: ".").last ?? "")
    }

    private func accessToken(for user: User, sid: String) -> String {
        let now = Int(env.accounts.clocks.now(for: user.id).timeIntervalSince1970)
        let claims = Claims(
            sub: user.id.rawValue, email: user.email, role: "authenticated", iat: now,
            exp: now + Int(Self.accessLifetime), sid: sid)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return signer.sign(payload: (try? encoder.encode(claims)) ?? Data())
    }
}
