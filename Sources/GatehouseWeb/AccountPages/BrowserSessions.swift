import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import Store

/// A signed-in browser: its session row, the backend's session behind it, and the account.
struct SignedIn: Sendable {
    var session: SessionRecord
    var user: User
    /// The backend's session for this browser: every call made as the user goes with it.
    var backendSession: AuthSession
}

/// Browser sessions for the account pages: an opaque random token in an HttpOnly cookie, stored
/// only as a keyed hash, rotated at every sign-in. Lives in Gatehouse's own SQLite whatever the
/// backend, and binds the browser to the backend's own session (`AuthSession`), kept sealed beside it.
struct BrowserSessions: Sendable {
    static let cookieName = "gh_session"
    /// `last_used_at` is written at most this often, so a page view is not a database write.
    static let touchInterval: TimeInterval = 60
    /// A session unused this long ends, whatever its absolute lifetime (README "Security defaults").
    static let idleTimeout: TimeInterval = 24 * 3600

    let database: AppDatabase
    let backend: any AuthAPI
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    let lifetime: TimeInterval
    let secureCookies: Bool
    let logger: Logger
    let renewals = SingleFlight<Int64, AuthSession?>()

    /// The signed-in user behind the request's cookie, or nil when it is missing, expired, revoked,
    /// its account is gone or disabled, or the backend no longer honours its session.
    func current(_ request: Request) async -> SignedIn? {
        guard let token = request.cookies[Self.cookieName], !token.isEmpty else { return nil }
        let now = clock()
        do {
            guard
                let (session, stored) = try await database.activeSessionWithCredential(
                    tokenHash: hasher.hex(token), now: now, idleTimeout: Self.idleTimeout),
                var backendSession = stored.flatMap(openBackendSession)
            else { return nil }
            if Self.renewalDue(backendSession, now: now) {
                guard let renewed = await renew(backendSession, sessionID: session.id) else { return nil }
                backendSession = renewed
            }
            let user = try await backend.currentUser(backendSession)
            guard !user.disabled else { return nil }
            if now.timeIntervalSince(session.lastUsedAt) > Self.touchInterval {
                try await database.touchSession(id: session.id, at: now)
            }
            return SignedIn(session: session, user: user, backendSession: backendSession)
        } catch AuthError.userNotFound, AuthError.sessionExpired {
            // Gone, or the backend's session expired or was revoked: sign in again.
            return nil
        } catch {
            logger.error("session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A session renews when it can and its access token is near its end: a day ahead for tokens
    /// that renew themselves (PocketBase's, which cannot renew once expired), a few minutes ahead —
    /// or after the fact — for sessions with a refresh token (the embedded backend's, 1-hour tokens).
    static func renewalDue(_ session: AuthSession, now: Date) -> Bool {
        guard session.refreshable else { return false }
        if session.refreshToken != nil { return session.expires(within: 5 * 60, of: now) }
        return session.expires(within: 24 * 3600, of: now) && !session.expires(within: 0, of: now)
    }

    /// The renewed backend session, saved for the browser session; nil when the backend refused it
    /// (then the browser is signed out). Requests of one browser renew once between them: a rotated
    /// refresh token presented twice would revoke the session. A request that read the old session
    /// just before another saved the new one finds the new one on re-reading. When the backend
    /// cannot be reached the old session is kept until the backend refuses it.
    private func renew(_ held: AuthSession, sessionID: Int64) async -> AuthSession? {
        await renewals.run(key: sessionID) {
            do {
                let stored = try await database.credential(sessionID: sessionID).flatMap(openBackendSession)
                if let stored, stored.accessToken != held.accessToken { return stored }
                let renewed = try await backend.refresh(held)
                try await database.saveCredential(try seal(renewed), sessionID: sessionID)
                return renewed
            } catch AuthError.sessionExpired, AuthError.sessionNotRefreshable, AuthError.invalidCredentials {
                return nil
            } catch {
                logger.notice("backend session not renewed", metadata: ["error": "\(error)"])
                return held
            }
        }
    }

    /// Starts a browser session on the backend's `backendSession` (revoking the one the browser
    /// had) and sets its cookie. The backend session is kept beside it, sealed, until it is revoked.
    /// An impersonation session names the superuser (`impersonator`) and lives only `lifetime`.
    func start(
        _ backendSession: AuthSession, replacing previous: SignedIn?, request: Request,
        impersonator: String? = nil, lifetime: TimeInterval? = nil, response: inout Response
    ) async throws {
        let user = backendSession.user
        let now = clock()
        let lifetime = lifetime ?? self.lifetime
        if let previous { try await revoke(previous) }
        let token = SecureRandom.token()
        let session = try await database.createSession(
            NewSession(
                tokenHash: hasher.hex(token), userID: user.id,
                userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) },
                ip: request.remoteAddress, createdAt: now, expiresAt: now.addingTimeInterval(lifetime),
                impersonator: impersonator))
        try await database.saveCredential(try seal(backendSession), sessionID: session.id)
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: token, maxAge: Int(lifetime),
                httpOnly: true, secure: secureCookies, sameSite: .lax))
    }

    /// Keeps `backendSession` behind this browser session from now on: the backend replaced the one
    /// it had (a password change on PocketBase ends every token and signs in afresh).
    func replaceBackendSession(of signedIn: SignedIn, with backendSession: AuthSession) async throws {
        try await database.saveCredential(try seal(backendSession), sessionID: signedIn.session.id)
    }

    /// Seals the backend's session for the database (`SecretBox` under a key derived from the
    /// server key, which lives in the key file): a copy of the SQLite file cannot act as the user.
    private func seal(_ backendSession: AuthSession) throws -> String {
        let json = String(decoding: try JSONEncoder().encode(backendSession), as: UTF8.self)
        return "sealed:" + Data(try credentialBox().seal(json)).base64EncodedString()
    }

    /// The backend session `seal` stored; nil when it cannot be opened (a session from before the
    /// key changed, or from a version that kept none): that browser signs in again.
    private func openBackendSession(_ stored: String) -> AuthSession? {
        guard stored.hasPrefix("sealed:"), let sealed = Data(base64Encoded: String(stored.dropFirst(7))),
            let box = try? credentialBox(), let value = try? box.open(Array(sealed))
        else { return nil }
        return try? JSONDecoder().decode(AuthSession.self, from: Data(value.utf8))
    }

    private func credentialBox() throws -> SecretBox {
        try SecretBox(key: hasher.derivedKey(for: "session-credentials"))
    }

    /// Revokes the session (and the backend's behind it) and clears its cookie.
    func end(_ signedIn: SignedIn?, response: inout Response) async throws {
        if let signedIn { try await revoke(signedIn) }
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: "", maxAge: 0,
                httpOnly: true, secure: secureCookies, sameSite: .lax))
    }

    /// Revokes a browser session, then signs its backend session out where the backend keeps
    /// sessions (a backend that cannot be reached leaves its token sealed in a revoked row).
    private func revoke(_ signedIn: SignedIn) async throws {
        try await database.revokeSession(id: signedIn.session.id, at: clock())
        do {
            try await backend.signOut(signedIn.backendSession)
        } catch {
            logger.notice("backend session not signed out", metadata: ["error": "\(error)"])
        }
    }
}
