import AuthCore
import Foundation
import HTTPServer
import Store

/// The sessions apps hold through the compatible APIs (PocketBase's tokens, InsForge's token
/// pairs): each a `SessionBindings` row of the API's kind (`AppSessionKind`) bound to a backend session, so
/// it lists, revokes and audits like a browser session. The APIs encode the row's token in their own
/// wire tokens; this owns the rows.
public struct AppSessions: Sendable {
    let env: Accounts
    let kind: SessionKind

    public init(env: Accounts, kind: AppSessionKind) { (self.env, self.kind) = (env, kind.stored) }

    private var bindings: SessionBindings { env.sessions.bindings }

    /// A new row for `session`, described by the request; its token (shown once).
    public func open(
        _ session: AuthSession, request: Request, impersonator: String? = nil, lifetime: TimeInterval
    ) async throws -> String {
        try await bindings.bind(session, kind: kind, request: request, impersonator: impersonator, lifetime: lifetime)
    }

    /// A row whose token lives `lifetime` and renews with a rotating refresh token.
    public func openRefreshable(
        _ session: AuthSession, request: Request, lifetime: TimeInterval
    ) async throws -> (token: String, refreshToken: String) {
        try await bindings.bindRefreshable(session, kind: kind, request: request, lifetime: lifetime)
    }

    /// The signed-in person behind a row's token; nil for an unknown, expired or revoked one.
    public func current(token: String) async -> SignedIn? {
        await bindings.current(token: token, kind: kind, idleTimeout: nil)
    }

    /// Swaps a current refresh token for a new pair (`SessionBindings.rotate`).
    public func rotate(refreshToken: String, lifetime: TimeInterval, familyLifetime: TimeInterval) async throws
        -> SessionBindings.Rotation
    {
        try await bindings.rotate(refreshToken: refreshToken, kind: kind, lifetime: lifetime, familyLifetime: familyLifetime)
    }

    /// Keeps `signedIn`'s row until `until` at least (a renewed token's end).
    public func extend(_ signedIn: SignedIn, until: Date) async throws {
        try await env.database.extendSession(id: signedIn.session.id, until: until)
    }

    /// The app signs out: the row is revoked with its backend session, and the act audited.
    public func signOut(_ signedIn: SignedIn, request: Request, via: String) async throws {
        try await bindings.revoke(signedIn)
        await env.audit.recordOwnAct(.signOut, of: signedIn, request: request, data: ["via": .string(via)])
    }
}
