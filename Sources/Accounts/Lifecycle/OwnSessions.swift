import AuthCore
import Foundation
import HTTPServer
import Store

/// A person's own sessions — the live ones listed, and signing out of one, of every other, or of
/// all — with one audit shape whichever page or API asks. Refused while support staff impersonate
/// the person: signing someone out of their devices is theirs to do.
public struct OwnSessions: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("descope-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    /// The account's sessions still in use: not revoked or expired, and (for a browser session, which
    /// has no refresh token) not idle past `BrowserSessions.idleTimeout`.
    public func live(of signedIn: SignedIn) async throws -> [SessionRow] {
        let now = env.clocks.now(for: signedIn.user.id)
        return try await env.database.sessions(userID: signedIn.user.id)
            .filter { $0.isActive(at: now) }
            .filter { $0.refreshTokenHash != nil || now.timeIntervalSince($0.lastUsedAt) < BrowserSessions.idleTimeout }
            .map(SessionRow.init)
    }

    /// The person signs out of the session they are using (a browser's, an app's): it ends, the
    /// backend's session behind it too, audited as their own act — and, for an impersonation
    /// session, as the impersonation's end. The caller clears its cookie or token.
    public func signOutOfThis(_ signedIn: SignedIn, request: Request) async throws {
        await env.audit.recordOwnAct(.signOut, of: signedIn, request: request, data: AuditTrail.data([:], via: via))
        try await env.sessions.bindings.revoke(signedIn)
        await ImpersonationEnding(env: env).recordEnded(signedIn, reason: .signedOut, request: request)
    }

    /// Ends the account's session `id`; false when it is not one of the account's live sessions.
    public func signOut(_ id: Int64, of signedIn: SignedIn, request: Request) async throws -> Bool {
        try refuseImpersonation(signedIn)
        guard try await env.database.revokeSession(id: id, ofUser: signedIn.user.id, at: env.clock()) else { return false }
        await env.audit.recordOwnAct(
            .sessionsSignedOut, of: signedIn, request: request, data: AuditTrail.data(["scope": "one"], via: via))
        return true
    }

    /// Ends every session of the account but `signedIn`'s; returns how many ended.
    public func signOutOthers(of signedIn: SignedIn, request: Request) async throws -> Int {
        try refuseImpersonation(signedIn)
        let count = try await env.database.revokeSessions(
            userID: signedIn.user.id, keeping: signedIn.session.id, at: env.clock())
        await env.audit.recordOwnAct(
            .sessionsSignedOut, of: signedIn, request: request,
            data: AuditTrail.data(["scope": "others", "count": .number(Double(count))], via: via))
        return count
    }

    /// Ends every session of the account, `signedIn`'s too; returns how many ended.
    public func signOutEverywhere(_ signedIn: SignedIn, request: Request) async throws -> Int {
        try refuseImpersonation(signedIn)
        let count = try await env.database.revokeSessions(userID: signedIn.user.id, at: env.clock())
        await env.audit.recordOwnAct(
            .sessionsSignedOut, of: signedIn, request: request,
            data: AuditTrail.data(["scope": "all", "count": .number(Double(count))], via: via))
        return count
    }

    private func refuseImpersonation(_ signedIn: SignedIn) throws {
        if signedIn.session.impersonator != nil { throw ImpersonationRefusal.sessionChange }
    }
}
