import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import Store

/// A signed-in browser: its session row and the account behind it.
struct SignedIn: Sendable {
    var session: SessionRecord
    var user: User
    /// The remote backend's credential for this user (proxy mode); nil for the embedded backend.
    var credential: BackendCredential? = nil
}

/// Browser sessions for the account pages: an opaque random token in an HttpOnly cookie, stored
/// only as a keyed hash, rotated at every sign-in. Lives in Gatehouse's own SQLite whatever the backend.
struct BrowserSessions: Sendable {
    static let cookieName = "gh_session"
    /// `last_used_at` is written at most this often, so a page view is not a database write.
    static let touchInterval: TimeInterval = 60
    /// A session unused this long ends, whatever its absolute lifetime (README "Security defaults").
    static let idleTimeout: TimeInterval = 24 * 3600

    let database: AppDatabase
    let backend: any AuthBackend
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    let lifetime: TimeInterval
    let secureCookies: Bool
    let logger: Logger

    /// The signed-in user behind the request's cookie, or nil when it is missing, expired, revoked,
    /// or its account is gone or disabled.
    func current(_ request: Request) async -> SignedIn? {
        guard let token = request.cookies[Self.cookieName], !token.isEmpty else { return nil }
        let now = clock()
        do {
            guard
                let (session, stored) = try await database.activeSessionWithCredential(
                    tokenHash: hasher.hex(token), now: now, idleTimeout: Self.idleTimeout)
            else { return nil }
            var credential = stored.flatMap(openCredential)
            if let current = credential, let renewed = await renew(current, sessionID: session.id) { credential = renewed }
            let user = try await backend.user(session.userID, credential: credential)
            guard !user.disabled else { return nil }
            if now.timeIntervalSince(session.lastUsedAt) > Self.touchInterval {
                try await database.touchSession(id: session.id, at: now)
            }
            return SignedIn(session: session, user: user, credential: credential)
        } catch AuthError.userNotFound, AuthError.sessionExpired {
            // Gone, or (proxy mode) the backend's token expired or was revoked: sign in again.
            return nil
        } catch {
            logger.error("session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A remote backend's renewed credential, saved for the session; nil when none was due or
    /// renewal failed (the old credential is used until the backend refuses it).
    private func renew(_ credential: BackendCredential, sessionID: Int64) async -> BackendCredential? {
        do {
            guard let renewed = try await backend.renewedCredential(credential) else { return nil }
            try await database.saveCredential(try sealCredential(renewed), sessionID: sessionID)
            return renewed
        } catch {
            logger.notice("backend credential not renewed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Starts a fresh session for `user` (revoking the one the browser had) and sets its cookie.
    /// A remote backend's `credential` is kept beside the session, sealed, until the session is revoked.
    /// An impersonation session names the superuser (`impersonator`) and lives only `lifetime`.
    func start(
        for user: User, credential: BackendCredential? = nil, replacing previous: SignedIn?, request: Request,
        impersonator: String? = nil, lifetime: TimeInterval? = nil, response: inout Response
    ) async throws {
        let now = clock()
        let lifetime = lifetime ?? self.lifetime
        if let previous { try await database.revokeSession(id: previous.session.id, at: now) }
        let token = SecureRandom.token()
        let session = try await database.createSession(
            NewSession(
                tokenHash: hasher.hex(token), userID: user.id,
                userAgent: request.headers["User-Agent"].map { String($0.prefix(512)) },
                ip: request.remoteAddress, createdAt: now, expiresAt: now.addingTimeInterval(lifetime),
                impersonator: impersonator))
        if let credential { try await database.saveCredential(try sealCredential(credential), sessionID: session.id) }
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: token, maxAge: Int(lifetime),
                httpOnly: true, secure: secureCookies, sameSite: .lax))
    }

    /// Seals a remote backend's token for the database (`SecretBox` under a key derived from the
    /// server key, which lives in the key file): a copy of the SQLite file cannot act as the user.
    private func sealCredential(_ credential: BackendCredential) throws -> String {
        "sealed:" + Data(try credentialBox().seal(credential.value)).base64EncodedString()
    }

    /// The credential `sealCredential` stored; nil when it cannot be opened (then the backend's
    /// admin side answers instead, as for a session that never had one).
    private func openCredential(_ stored: String) -> BackendCredential? {
        guard stored.hasPrefix("sealed:"), let sealed = Data(base64Encoded: String(stored.dropFirst(7))),
            let box = try? credentialBox(), let value = try? box.open(Array(sealed))
        else { return nil }
        return BackendCredential(value)
    }

    private func credentialBox() throws -> SecretBox {
        try SecretBox(key: hasher.derivedKey(for: "session-credentials"))
    }

    /// Revokes the session and clears its cookie.
    func end(_ signedIn: SignedIn?, response: inout Response) async throws {
        if let signedIn { try await database.revokeSession(id: signedIn.session.id, at: clock()) }
        response.setCookie(
            Cookie(
                name: Self.cookieName, value: "", maxAge: 0,
                httpOnly: true, secure: secureCookies, sameSite: .lax))
    }
}
