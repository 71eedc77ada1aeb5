import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Confirming an email change the asker's live session proved (Descope's `update/email`, under
/// `WayInPolicy.emailChangeProvenBySession`): the code or link mailed to the new address alone
/// moves the account. Descope's verify routes take these beside sign-in codes and links, so each
/// answers nil when what it was given confirms no such change, and the route goes on to sign in.
/// A confirmed change ends every session of the account (as on every way in) and opens a new one
/// at the new address: the asker proved a session of the account, and Descope's verify signs in.
extension MailedCodeChecks {
    /// A 6-digit code for the account now at `email`; nil when it has no live change waiting, or
    /// when this is not its code (a wrong try is counted and audited).
    public func completeProvenEmailChange(email: String, code: String, policy: WayInPolicy, request: Request)
        async throws -> AuthSession?
    {
        guard policy.emailChangeProvenBySession, let backend = env.backend as? any SessionProvenEmailChanges,
            try await backend.awaitsEmailChangeCode(email: email)
        else { return nil }
        return try await proven(request) { try await backend.confirmEmailChange(email: email, code: code) }
    }

    /// A link's token; nil when it is no live session-proven change's (a sign-in link's, say — a
    /// change asked with the password is confirmed on the pages, with the password).
    public func completeProvenEmailChange(linkToken token: String, policy: WayInPolicy, request: Request) async throws
        -> AuthSession?
    {
        guard policy.emailChangeProvenBySession else { return nil }
        return try await proven(request, unknownIsNoChange: true) {
            try await env.backend.confirmEmailChange(token: token, password: nil, keeping: nil).user
        }
    }

    /// Takes a code check, confirms, and on success ends the account's sessions, audits and opens
    /// the new session. A refusal other than the address taken meanwhile answers nil, audited —
    /// but for a link token nobody issued (`unknownIsNoChange`: most tokens there are sign-in links).
    private func proven(_ request: Request, unknownIsNoChange: Bool = false, _ confirm: () async throws -> User)
        async throws -> AuthSession?
    {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let user: User
        do {
            user = try await confirm()
        } catch AuthError.emailExists {
            throw AuthError.emailExists
        } catch AuthError.invalidCode where unknownIsNoChange {
            return nil
        } catch let error as AuthError {
            await env.audit.record(
                .emailChangeFailed, actor: nil, request: request,
                data: AuditTrail.data(["step": "confirm", "proof": "session", "reason": .string("\(error)")], via: via))
            return nil
        }
        try await emailChanged(user, keptThisBrowser: false, request: request)
        return try await env.pageBackend.admin.openSession(for: user.id)
    }
}
