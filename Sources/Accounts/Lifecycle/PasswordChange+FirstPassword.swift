import AuthCore
import Foundation
import HTTPServer

/// A first password for an account that has none (signed up with a passkey, or through a
/// provider): the security page's form then asks no current password, as there is none to check.
/// The session is the only proof, so it must be a recent sign-in (`RecentSignIn`).
extension PasswordChange {
    /// Whether `signedIn` began too long ago to set a first password: the person signs in again
    /// first (`setFirst` refuses with `FreshSignInRequired`).
    public func needsFreshSignIn(_ signedIn: SignedIn) -> Bool {
        RecentSignIn.isStale(signedIn, now: env.clock())
    }

    /// Whether the account has a password (the form asks for it). True where Gatehouse cannot tell
    /// (a remote backend keeps the accounts): the form asks, as it always did.
    public func hasPassword(_ signedIn: SignedIn) async throws -> Bool {
        try await env.database.hasPassword(userID: signedIn.user.id) ?? true
    }

    /// Sets the first password on the strength of the session, never through an impersonation, only
    /// while the account has none (else `.invalidCredentials`: the current one must be given), never
    /// on an unproven account (`AccountTrust`), and only in a recent sign-in (else `FreshSignInRequired`).
    /// The backend checks it against the password rule (`.validation`) and ends every session of
    /// the account, as any new credential does; the person goes on in a fresh browser session,
    /// opened here for the caller to start (`BrowserSessions.start`).
    public func setFirst(_ new: String, of signedIn: SignedIn, request: Request) async throws -> AuthSession {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        guard try await !hasPassword(signedIn) else { throw AuthError.invalidCredentials }
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user)
        guard !needsFreshSignIn(signedIn) else { throw FreshSignInRequired(.setPassword) }
        _ = try await env.backend.admin.updateUser(signedIn.user.id, UserUpdate(password: new))
        // Gatehouse's sessions of the account end too, whatever the backend ended of its own.
        try await env.database.revokeSessions(userID: signedIn.user.id, at: env.clock())
        let session = try await env.pageBackend.admin.openSession(for: signedIn.user.id)
        await env.audit.recordOwnAct(
            .passwordChanged, of: signedIn, request: request,
            data: AuditTrail.data(["first_password": .bool(true)], via: via))
        return session
    }
}
