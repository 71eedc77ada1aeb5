import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Asking to move an account to a new address, the one way every front-end does it (the account
/// page, the PocketBase API): never through an impersonation — the session's row names its
/// superuser whichever front-end it came through (DESIGN.md: no credential changes while
/// impersonating) — one of the source's mails (`Budget.mails`), then the backend's request, audited
/// as the account's own act. The backend owns the password rule: a password given here is checked
/// as one throttled try (`PasswordCheck.emailChange`, admitted before the hash); without one the
/// backend asks for it at confirmation wherever the account has one (PocketBase's
/// `confirm-email-change {token, password}`).
public struct EmailChangeRequest: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data; nil for the account pages.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    public enum Outcome: Sendable {
        /// The confirmation link is on its way (or, for a taken address, answered as if it were).
        case requested
        /// The password was wrong, or not checked (locked): one answer for both.
        case passwordRefused
        /// The source is out of mails.
        case throttled(retryAfter: Int)
    }

    /// Throws `ImpersonationRefusal.credentialChange` for an impersonation, `.validation` for an
    /// address the backend refuses.
    public func request(newEmail: String, password: String?, by signedIn: SignedIn, request: Request) async throws -> Outcome {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        if let refusal = await env.budgets.take(.mails(ip: request.remoteAddress)) {
            return .throttled(retryAfter: refusal.retryAfter)
        }
        let ask = {
            try await env.backend.requestEmailChange(newEmail: newEmail, password: password, session: signedIn.backendSession)
        }
        if let password {
            let result = try await env.budgets.withPasswordTry(
                .emailChange, email: signedIn.user.email, password: password, ip: request.remoteAddress, ask)
            if case .failure(let refusal) = result {
                await env.audit.recordOwnAct(
                    .emailChangeFailed, of: signedIn, request: request,
                    data: AuditTrail.data(["step": "request", "reason": .string(refusal.rawValue)], via: via))
                return .passwordRefused
            }
        } else {
            try await ask()
        }
        await env.audit.recordOwnAct(
            .emailChangeRequested, of: signedIn, request: request, data: AuditTrail.data(["to": .string(newEmail)], via: via))
        return .requested
    }

    /// A change asked with no password, on the proof of `signedIn`'s live session alone, where
    /// `policy` allows it (`emailChangeProvenBySession`, Descope's `update/email`); the code or link
    /// to the new address then confirms it without the password. The same mail budget and audit as
    /// any request (a code checked by `MailedCodeChecks.completeProvenEmailChange(email:code:…)`, a
    /// link by `…(linkToken:…)`). `.notSupported(.emailChange)` where the policy or the backend does not allow it.
    public func request(
        newEmail: String, provenBy signedIn: SignedIn, confirmedBy proof: MailedProof, policy: WayInPolicy,
        request: Request
    ) async throws -> Outcome {
        guard policy.emailChangeProvenBySession, let backend = env.backend as? any SessionProvenEmailChanges else {
            throw AuthError.notSupported(.emailChange)
        }
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        if let refusal = await env.budgets.take(.mails(ip: request.remoteAddress)) {
            return .throttled(retryAfter: refusal.retryAfter)
        }
        try await backend.requestEmailChange(
            newEmail: newEmail, session: signedIn.backendSession, confirmedBy: proof)
        await env.audit.recordOwnAct(
            .emailChangeRequested, of: signedIn, request: request,
            data: AuditTrail.data(["to": .string(newEmail), "proof": "session"], via: via))
        return .requested
    }
}
