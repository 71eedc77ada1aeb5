import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import Store

/// A signed-in browser: its session row, the backend's session behind it, and the account.
public struct SignedIn: Sendable {
    public var session: SessionRow
    public var user: User
    /// The backend's session for this browser: every call made as the user goes with it.
    public var backendSession: AuthSession
    /// When this session's sign-in happened.
    public var signedInAt: Date { session.createdAt }
}

/// Browser sessions for the account pages: an opaque random token in an HttpOnly cookie, rotated at
/// every sign-in, over a `SessionBindings` row that holds the backend's own session.
public struct BrowserSessions: Sendable {
    static let cookieName = "gh_session"
    /// A session unused this long ends, whatever its absolute lifetime (README "Security defaults").
    static let idleTimeout: TimeInterval = 24 * 3600

    let bindings: SessionBindings
    let lifetime: TimeInterval
    let secureCookies: Bool

    /// The signed-in user behind the request's cookie, or nil when it is missing, expired, revoked,
    /// its account is gone or disabled, or the backend no longer honours its session.
    public func current(_ request: Request) async -> SignedIn? {
        guard let token = request.cookies[Self.cookieName], !token.isEmpty else { return nil }
        return await bindings.current(token: token, kind: .browser, idleTimeout: Self.idleTimeout)
    }

    /// Starts a browser session on the backend's `backendSession` (revoking the one the browser
    /// had) and sets its cookie. An impersonation session names the superuser (`impersonator`) and
    /// lives only `lifetime`.
    public func start(
        _ backendSession: AuthSession, replacing previous: SignedIn?, request: Request,
        impersonator: String? = nil, reason: ImpersonationReason? = nil, lifetime: TimeInterval? = nil,
        response: inout Response
    ) async throws {
        response.setCookie(
            try await cookie(
                for: backendSession, replacing: previous, request: request, impersonator: impersonator, reason: reason,
                lifetime: lifetime))
    }

    /// `start`'s session as the cookie that opens it, for a caller that hands it on (a test
    /// suite's one-call sign-in gives it to its browser).
    public func cookie(
        for backendSession: AuthSession, replacing previous: SignedIn?, request: Request,
        impersonator: String? = nil, reason: ImpersonationReason? = nil, lifetime: TimeInterval? = nil
    ) async throws -> Cookie {
        let lifetime = lifetime ?? self.lifetime
        if let previous { try await bindings.revoke(previous) }
        let token = try await bindings.bind(
            backendSession, kind: .browser, request: request, impersonator: impersonator, reason: reason,
            lifetime: lifetime)
        return Cookie(
            name: Self.cookieName, value: token, maxAge: Int(lifetime), httpOnly: true, secure: secureCookies, sameSite: .lax)
    }

    /// Keeps `backendSession` behind this browser session from now on: the backend replaced the one
    /// it had (a password change on PocketBase ends every token and signs in afresh).
    func replaceBackendSession(of signedIn: SignedIn, with backendSession: AuthSession) async throws {
        try await bindings.replaceBackendSession(of: signedIn.session.id, with: backendSession)
    }

    /// Revokes the session (and the backend's behind it) and clears its cookie.
    public func end(_ signedIn: SignedIn?, response: inout Response) async throws {
        if let signedIn { try await bindings.revoke(signedIn) }
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: "", maxAge: 0,
                httpOnly: true, secure: secureCookies, sameSite: .lax))
    }
}
