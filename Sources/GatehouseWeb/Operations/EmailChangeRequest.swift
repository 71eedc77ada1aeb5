import AuthCore
import Foundation
import HTTPServer

/// Asking to move an account to a new address, the one way every front-end does it (the account
/// page, the PocketBase API): never through an impersonation — the session's row names its
/// superuser whichever front-end it came through (DESIGN.md: no credential changes while
/// impersonating) — then the backend's request, audited as the account's own act. The backend
/// owns the password rule: checked here when given, else at confirmation wherever the account has
/// one (PocketBase's `confirm-email-change {token, password}`).
struct EmailChangeRequest: Sendable {
    let env: PageEnvironment
    /// Names the front-end in the audit data; nil for the account pages.
    let via: String?

    /// Mails the confirmation link; `ImpersonationRefusal.credentialChange` for an impersonation.
    func request(newEmail: String, password: String?, by signedIn: SignedIn, request: Request) async throws {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        try await env.backend.requestEmailChange(newEmail: newEmail, password: password, session: signedIn.backendSession)
        await env.audit.recordOwnAct(
            .emailChangeRequested, of: signedIn, request: request, data: AuditTrail.data(["to": .string(newEmail)], via: via))
    }
}
