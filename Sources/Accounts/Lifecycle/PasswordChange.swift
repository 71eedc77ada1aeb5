import AuthCore
import Foundation
import HTTPServer

/// A signed-in person changing their password — the security page, PocketBase's owner update with
/// `oldPassword` — never through an impersonation; the current
/// password checked like a sign-in's (admitted before the hash, sharing its counts); the new one
/// set by the backend, which goes on with a fresh session; every other Gatehouse session of the
/// account ended; audited either way.
public struct PasswordChange: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("pocketbase-api"); nil for the pages.
    var via: String? = nil

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    public enum Outcome: Sendable {
        /// Changed; `signedIn`'s session now holds the backend's new session, `renewed`.
        case changed(renewed: AuthSession, othersSignedOut: Int)
        /// Changed, and the backend asks a second step of the fresh sign-in: every session of the
        /// account has ended, `signedIn`'s too, and the caller sends the person to the second step.
        case secondStep(MFAChallenge)
        /// The current password was wrong, or not checked (locked or throttled): one answer for all.
        case refused
    }

    /// Throws `ImpersonationRefusal.credentialChange`, `.validation` for a new password the backend
    /// refuses, `.sessionExpired` when the session is gone.
    public func change(current: String, new: String, of signedIn: SignedIn, request: Request) async throws -> Outcome {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        let result = try await env.budgets.withPasswordTry(
            .signIn, email: signedIn.user.email, password: current, ip: request.remoteAddress
        ) {
            try await env.pageBackend.changePassword(currentPassword: current, newPassword: new, session: signedIn.backendSession)
        }
        switch result {
        case .failure(let refusal):
            await env.audit.recordOwnAct(
                .passwordChangeFailed, of: signedIn, request: request,
                data: AuditTrail.data(["reason": .string(refusal.rawValue)], via: via))
            return .refused
        case .success(.secondStep(let challenge)):
            // Every Gatehouse session of the account ends, this one too: it held the old password's session.
            let ended = try await env.database.revokeSessions(userID: signedIn.user.id, at: env.clock())
            await env.audit.recordOwnAct(
                .passwordChanged, of: signedIn, request: request,
                data: AuditTrail.data(
                    ["others_signed_out": .number(Double(max(ended - 1, 0))), "second_step": .bool(true)], via: via))
            return .secondStep(challenge)
        case .success(.refused(let refusal)):
            throw refusal.error
        case .success(.signedIn(let session)):
            try await env.sessions.replaceBackendSession(of: signedIn, with: session)
            // The backend ended the sessions it keeps; these are Gatehouse's.
            let others = try await env.database.revokeSessions(
                userID: signedIn.user.id, keeping: signedIn.session.id, at: env.clock())
            await env.audit.recordOwnAct(
                .passwordChanged, of: signedIn, request: request,
                data: AuditTrail.data(["others_signed_out": .number(Double(others))], via: via))
            return .changed(renewed: session, othersSignedOut: others)
        }
    }

    /// A new password set on the strength of a session alone, where the way in's contract asks no
    /// current password (`WayInPolicy.passwordSetBySession`: Descope's `password/update`, used
    /// after signing in by a mailed link to reset a forgotten one) — only in a recent sign-in
    /// (`FreshSignInRequired` past `RecentSignIn.window`), never through an impersonation, nor on an
    /// unproven account unless `policy` admits it (`AccountTrust`). Treated as a reset: the backend
    /// sets it (`AuthAdminAPI.updateUser`, its policy checked there), and every session of the
    /// account ends, `signedIn`'s too — a stolen session cannot keep itself going past the new
    /// password. Throws `.validation` for a password the policy refuses.
    public func setWithoutCurrent(
        _ new: String, of signedIn: SignedIn, policy: WayInPolicy, request: Request
    ) async throws {
        guard policy.passwordSetBySession else { throw AuthError.notSupported(.passwordChange) }
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        guard !RecentSignIn.isStale(signedIn, now: env.clock()) else { throw FreshSignInRequired(.setPassword) }
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy)
        _ = try await env.backend.admin.updateUser(signedIn.user.id, UserUpdate(password: new))
        let ended = try await env.database.revokeSessions(userID: signedIn.user.id, at: env.clock())
        await env.audit.recordOwnAct(
            .passwordChanged, of: signedIn, request: request,
            data: AuditTrail.data(
                ["others_signed_out": .number(Double(max(ended - 1, 0))), "without_current": .bool(true)], via: via))
    }
}
