import AuthCore
import Foundation
import HTTPServer
import Logging
import Secrets
import ServerSeam
import Store

/// Gatehouse's own sessions — a browser's cookie, an app's token on a compatible API — each a row in
/// Store found by the keyed hash of its random token and bound to the backend's own session
/// (`AuthSession`), kept sealed beside it. Each row's token is hashed under its `SessionKind`, so a
/// token of one kind never opens another. Lives in Gatehouse's SQLite whatever the backend, so
/// sessions list, revoke and audit alike for every backend.
public struct SessionBindings: Sendable {
    /// `last_used_at` is written at most this often, so a request is not a database write.
    static let touchInterval: TimeInterval = 60

    let database: AppDatabase
    let backend: any AuthAPI
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
    /// Each account's own time: a row's expiry and idleness are decided in its account's.
    let clocks: AccountClocks
    let logger: Logger
    let renewals = SingleFlight<Int64, AuthSession?>()
    /// Seals backend sessions: a key derived from the server key once, not per request.
    private let credentialBox: SecretBox?
    /// Backend sessions already opened, by the sealed text they were opened from (decrypting and
    /// decoding one was most of a lookup's work). Opening is a pure function of that text, so this
    /// cannot keep a revoked session alive: every request still reads its row — revocation, expiry,
    /// idleness and the sealed text itself — and the backend still checks the session it names; a
    /// changed credential is different text and opens afresh.
    private let opened = BoundedMemo<String, AuthSession>(capacity: 4096)

    init(
        database: AppDatabase, backend: any AuthAPI, hasher: KeyedHash, clocks: AccountClocks, logger: Logger
    ) {
        self.database = database
        self.backend = backend
        self.hasher = hasher
        self.clock = clocks.clock
        self.clocks = clocks
        self.logger = logger
        credentialBox = try? SecretBox(key: hasher.derivedKey(for: "session-credentials"))
    }

    /// The account behind `token`, or nil when it is unknown, expired, revoked, idle longer than
    /// `idleTimeout`, its account is gone or disabled, or the backend no longer honours its session.
    func current(token: String, kind: SessionKind, idleTimeout: TimeInterval?) async -> SignedIn? {
        await signedIn(idleTimeout: idleTimeout) { now in
            try await database.activeSessionWithCredential(tokenHash: hash(token, kind), now: now, idleTimeout: idleTimeout)
        }
    }

    /// The account behind the row `sessionID` (an API that names sessions by a stable handle while
    /// their tokens rotate), under `current(token:…)`'s rules: nil when the row is revoked or
    /// expired, its account gone or disabled, or its backend session over.
    func current(sessionID: Int64) async -> SignedIn? {
        await signedIn(idleTimeout: nil) { now in
            try await database.sessionWithCredential(id: sessionID).flatMap { $0.0.isActive(at: now) ? $0 : nil }
        }
    }

    /// A live row that `lookup` found at the server's time, still live in its account's time
    /// (`AccountClocks`: never behind the server's), with its backend session opened (renewed when
    /// due) and its account read through the seam.
    private func signedIn(
        idleTimeout: TimeInterval?, _ lookup: (Date) async throws -> (SessionRecord, String?)?
    ) async -> SignedIn? {
        do {
            guard let (session, stored) = try await lookup(clock()) else { return nil }
            let now = clocks.now(for: session.userID)
            guard
                Self.isLive(session, at: now, idleTimeout: idleTimeout),
                var backendSession = stored.flatMap({ sealed in opened.value(for: sealed) { openBackendSession(sealed) } })
            else { return nil }
            // The backend's own token lives by the backend's time, not the account's.
            if Self.renewalDue(backendSession, now: clock()) {
                guard let renewed = await renew(backendSession, sessionID: session.id) else { return nil }
                backendSession = renewed
            }
            let user = try await backend.currentUser(backendSession)
            guard !user.disabled else { return nil }
            if now.timeIntervalSince(session.lastUsedAt) > Self.touchInterval {
                try await database.touchSession(id: session.id, at: now)
            }
            return SignedIn(session: SessionRow(session), user: user, backendSession: backendSession)
        } catch AuthError.userNotFound, AuthError.sessionExpired {
            // Gone, or the backend's session expired or was revoked: sign in again.
            return nil
        } catch {
            logger.error("session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A new row bound to `backendSession`, described by the request's user agent and address (and,
    /// for an impersonation, why staff opened it); returns its token (shown once: only its keyed
    /// hash is stored).
    func bind(
        _ backendSession: AuthSession, kind: SessionKind, request: Request, impersonator: String?,
        reason: ImpersonationReason? = nil, lifetime: TimeInterval
    ) async throws -> String {
        try await bindRow(
            backendSession, kind: kind, request: request, impersonator: impersonator, reason: reason, lifetime: lifetime
        ).token
    }

    /// A row whose token lives `lifetime` and renews with a rotating refresh token
    /// (`rotate(refreshToken:…)`), as InsForge's access and refresh tokens do.
    func bindRefreshable(
        _ backendSession: AuthSession, kind: SessionKind, request: Request, lifetime: TimeInterval
    ) async throws -> (token: String, refreshToken: String) {
        let refreshToken = SecureRandom.token()
        let token = try await bindRow(
            backendSession, kind: kind, request: request, impersonator: nil, lifetime: lifetime,
            refreshTokenHash: refreshHash(refreshToken, kind)
        ).token
        return (token, refreshToken)
    }

    /// What presenting a refresh token did.
    public enum Rotation {
        /// A fresh token pair for the same row.
        case rotated(token: String, refreshToken: String)
        /// A refresh token already rotated away was presented again: the row is revoked (a thief
        /// and the owner share one family), and so is its backend session.
        case reused
        /// Unknown, revoked, or older than `familyLifetime`.
        case refused
    }

    /// Swaps the row's token and refresh token for new ones when `refreshToken` is its current one;
    /// the family's age and the new token's end are reckoned in the row's account's time.
    func rotate(refreshToken: String, kind: SessionKind, lifetime: TimeInterval, familyLifetime: TimeInterval) async throws
        -> Rotation
    {
        let owner = try await database.sessionOwner(refreshTokenHash: refreshHash(refreshToken, kind))
        let now = owner.map(clocks.now(for:)) ?? clock()
        let (token, newRefresh) = (SecureRandom.token(), SecureRandom.token())
        switch try await database.rotateRefreshToken(
            refreshHash(refreshToken, kind), newTokenHash: hash(token, kind), newRefreshTokenHash: refreshHash(newRefresh, kind),
            accessExpiresAt: now.addingTimeInterval(lifetime), createdAfter: now.addingTimeInterval(-familyLifetime), now: now)
        {
        case .rotated: return .rotated(token: token, refreshToken: newRefresh)
        case .reused: return .reused
        case .refused: return .refused
        }
    }

    private func bindRow(
        _ backendSession: AuthSession, kind: SessionKind, request: Request, impersonator: String?,
        reason: ImpersonationReason? = nil, lifetime: TimeInterval, refreshTokenHash: String? = nil
    ) async throws -> (token: String, record: SessionRecord) {
        let now = clocks.now(for: backendSession.user.id)
        let token = SecureRandom.token()
        let session = try await database.createSession(
            NewSession(
                tokenHash: hash(token, kind), refreshTokenHash: refreshTokenHash, userID: backendSession.user.id,
                userAgent: Self.userAgent(request), ip: request.remoteAddress, createdAt: now,
                expiresAt: now.addingTimeInterval(lifetime),
                impersonator: impersonator, impersonationReason: reason?.text, impersonationTicket: reason?.ticketURL))
        try await database.saveCredential(try seal(backendSession), sessionID: session.id)
        RequestEffects.note("session", String(kind.rawValue.dropLast()))
        return (token, session)
    }

    /// Keeps `backendSession` behind the row from now on (the backend replaced the one it had).
    func replaceBackendSession(of sessionID: Int64, with backendSession: AuthSession) async throws {
        try await database.saveCredential(try seal(backendSession), sessionID: sessionID)
    }

    /// Revokes a session row, then signs its backend session out where the backend keeps sessions
    /// (a backend that cannot be reached leaves its token sealed in a revoked row).
    func revoke(_ signedIn: SignedIn) async throws {
        try await database.revokeSession(id: signedIn.session.id, at: clock())
        do {
            try await backend.signOut(signedIn.backendSession)
        } catch {
            logger.notice("backend session not signed out", metadata: ["error": "\(error)"])
        }
    }

    /// Whether `session` is live at its account's `now`: not revoked, not expired, and used within
    /// `idleTimeout` when there is one.
    static func isLive(_ session: SessionRecord, at now: Date, idleTimeout: TimeInterval?) -> Bool {
        session.isActive(at: now) && (idleTimeout.map { now.timeIntervalSince(session.lastUsedAt) < $0 } ?? true)
    }

    /// A session renews when it can and its access token is near its end: a day ahead for tokens
    /// that renew themselves (PocketBase's, which cannot renew once expired), a few minutes ahead —
    /// or after the fact — for sessions with a refresh token (the embedded backend's, 1-hour tokens).
    static func renewalDue(_ session: AuthSession, now: Date) -> Bool {
        guard session.refreshable else { return false }
        if session.refreshToken != nil { return session.expires(within: 5 * 60, of: now) }
        return session.expires(within: 24 * 3600, of: now) && !session.expires(within: 0, of: now)
    }

    /// The renewed backend session, saved for the row; nil when the backend refused it (then the
    /// session is over). Requests of one session renew once between them: a rotated refresh token
    /// presented twice would revoke the session. A request that read the old session just before
    /// another saved the new one finds the new one on re-reading. When the backend cannot be
    /// reached the old session is kept until the backend refuses it.
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

    /// What a row keeps of the request's user agent: enough to recognise it in a list, no more.
    static func userAgent(_ request: Request) -> String? {
        request.headers["User-Agent"].map { String($0.prefix(512)) }
    }

    func hash(_ token: String, _ kind: SessionKind) -> String { kind.tokenHash(token, with: hasher) }
    private func refreshHash(_ token: String, _ kind: SessionKind) -> String { kind.refreshTokenHash(token, with: hasher) }

    /// Seals the backend's session for the database (`SecretBox` under a key derived from the
    /// server key, which lives in the key file): a copy of the SQLite file cannot act as the user.
    private func seal(_ backendSession: AuthSession) throws -> String {
        let json = String(decoding: try JSONEncoder().encode(backendSession), as: UTF8.self)
        guard let credentialBox else { throw SecretsError.openFailed }
        return "sealed:" + Data(credentialBox.seal(json)).base64EncodedString()
    }

    /// The backend session `seal` stored; nil when it cannot be opened (a session from before the
    /// key changed, or from a version that kept none): that session is over.
    private func openBackendSession(_ stored: String) -> AuthSession? {
        guard stored.hasPrefix("sealed:"), let sealed = Data(base64Encoded: String(stored.dropFirst(7))),
            let box = credentialBox, let value = try? box.open(Array(sealed))
        else { return nil }
        return try? JSONDecoder().decode(AuthSession.self, from: Data(value.utf8))
    }

}
