import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Sessions named by a stable handle while their tokens rotate (SuperTokens' session handle), and
/// sessions an app's own backend opens for a person it signed in itself.
extension AppSessions {
    /// What a new handle-named session hands out.
    public struct Opened: Sendable {
        public var handle: String
        /// The row's token (its access token's lookup; rotates with the refresh token).
        var token: String
        public var refreshToken: String
        public var user: User
    }

    /// A refreshable row for `userID`, whom an app's own backend signed in through this server
    /// first (a SuperTokens backend checks the password or code, then asks for a session): an
    /// unknown or disabled account is refused (`.userNotFound`, `.invalidCredentials`), and the
    /// act is audited as `app.session_opened` with `via`.
    public func openForAppBackend(
        _ userID: UserID, request: Request, lifetime: TimeInterval, via: String
    ) async throws -> Opened {
        let session = try await env.pageBackend.admin.openSession(for: userID)
        let opened = try await openNamed(session, request: request, lifetime: lifetime)
        await env.audit.record(
            .appSessionOpened, actor: userID.rawValue, subject: userID.rawValue, request: request,
            data: ["via": .string(via)])
        return opened
    }

    /// A refreshable, handle-named row for `session`, which a sign-in owner opened (SuperTokens'
    /// frontend API signs people in itself, then hands out the handle's tokens).
    public func openNamed(_ session: AuthSession, request: Request, lifetime: TimeInterval) async throws -> Opened {
        let (token, refreshToken) = try await openRefreshable(session, request: request, lifetime: lifetime)
        guard let signedIn = await current(token: token) else { throw AuthError.sessionExpired }
        return Opened(handle: handle(of: signedIn), token: token, refreshToken: refreshToken, user: signedIn.user)
    }

    /// The row's stable public name: its id and a keyed MAC of it under this kind, so a handle
    /// names only rows handed out as this kind and cannot be guessed from another.
    public func handle(of signedIn: SignedIn) -> String { handle(id: signedIn.session.id) }

    /// The signed-in person behind a handle; nil for a forged handle or a row that is revoked,
    /// expired, or whose account is gone or disabled (`SessionBindings.current(sessionID:)`).
    public func current(handle: String) async -> SignedIn? {
        guard let id = rowID(handle: handle) else { return nil }
        return await env.sessions.bindings.current(sessionID: id)
    }

    /// The handles of `userID`'s live sessions, every way in: a person's sessions are one list
    /// (the one sign-out everywhere ends), whichever way in opened them.
    public func handles(of userID: UserID) async throws -> [String] {
        let now = env.clocks.now(for: userID)
        return try await env.database.sessions(userID: userID).filter { $0.isActive(at: now) }.map { handle(id: $0.id) }
    }

    /// The account a handle's row belongs to, whatever the row's state (a theft report names it).
    public func owner(ofHandle handle: String) async -> UserID? {
        guard let id = rowID(handle: handle) else { return nil }
        return try? await env.database.sessionWithCredential(id: id)?.0.userID
    }

    /// Ends the session a handle names, as the person's own sign-out; false when it was not live.
    public func signOut(handle: String, request: Request, via: String) async throws -> Bool {
        guard let signedIn = await current(handle: handle) else { return false }
        try await signOut(signedIn, request: request, via: via)
        return true
    }

    /// Ends every session of `userID` — every way in, as "sign out everywhere" does — and
    /// returns the handles of the rows it ended.
    public func signOutEverywhere(_ userID: UserID, request: Request, via: String) async throws -> [String] {
        let now = env.clocks.now(for: userID)
        let live = try await env.database.sessions(userID: userID).filter { $0.isActive(at: now) }
        try await env.database.revokeSessions(userID: userID, at: now)
        await env.audit.record(
            .sessionsSignedOut, subject: userID.rawValue, request: request,
            data: ["scope": "all", "via": .string(via), "count": .number(Double(live.count))])
        return live.map { handle(id: $0.id) }
    }

    private func handle(id: Int64) -> String { "\(id)-" + mac(id) }

    func rowID(handle: String) -> Int64? {
        let parts = handle.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let id = Int64(parts[0]), KeyedHash.constantTimeEquals(String(parts[1]), mac(id)) else {
            return nil
        }
        return id
    }

    private func mac(_ id: Int64) -> String {
        String(env.sessions.bindings.hasher.hex("session-handle:\(kind.rawValue)\(id)").prefix(32))
    }
}
