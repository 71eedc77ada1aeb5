import AuthCore
import Foundation
import HTTPServer

/// Checks of a mailed code or token — verification, the reset code's exchange, the reset itself,
/// an email change's confirmation — whichever way in asks: each takes one of the source's code checks (`Budget.codeChecks`, shared
/// with sign-in codes and magic links) before the seam compares anything, and throws
/// `.rateLimited` when there is none left. The backend keeps each code's own five tries; this
/// budget is what stops a guesser who asks for fresh codes (issue 22: 44,812 reset-code guesses).
struct MailedCodeChecks: Sendable {
    let env: PageEnvironment
    /// Names the front-end in the audit data of the completed acts ("insforge-api", "pocketbase-api").
    var via: String? = nil

    /// The 6-digit verification code for `email`, through `backend` (the front-end's sessions).
    func verifyEmail(email: String, code: String, backend: any AuthAPI, request: Request) async throws -> VerificationOutcome {
        try await admit(request)
        return try await backend.verifyEmail(email: email, code: code)
    }

    /// A verification link's token.
    func verifyEmailLink(token: String, backend: any AuthAPI, request: Request) async throws -> VerificationOutcome {
        try await admit(request)
        return try await backend.verifyEmailLink(token: token)
    }

    /// A mailed reset code traded for a reset token.
    func exchangeResetCode(email: String, code: String, request: Request) async throws -> String {
        try await admit(request)
        return try await env.backend.exchangePasswordResetCode(email: email, code: code)
    }

    /// A new password with a reset token.
    func resetPassword(token: String, newPassword: String, request: Request) async throws -> User {
        try await admit(request)
        return try await env.backend.resetPassword(token: token, newPassword: newPassword)
    }

    /// An email change's mailed token (with the account's password where the backend asks it),
    /// keeping `keeping`'s session when it is the account's.
    func confirmEmailChange(
        token: String, password: String?, keeping: AuthSession?, request: Request
    ) async throws -> EmailChangeConfirmation {
        try await admit(request)
        return try await env.backend.confirmEmailChange(token: token, password: password, keeping: keeping)
    }

    /// A verification code checked and, when it verified the address, `verification.completed`
    /// recorded; with the backend's sign-in sessions (`pageBackend`), so an account with a second
    /// step throws `.mfaRequired` on.
    func completeVerification(email: String, code: String, request: Request) async throws -> VerificationOutcome {
        let outcome = try await verifyEmail(email: email, code: code, backend: env.pageBackend, request: request)
        await verified(outcome, method: "code", request: request)
        return outcome
    }

    /// A verification link's token checked (it never signs in: mail scanners open links too) and,
    /// when it verified the address, `verification.completed` recorded.
    func completeVerification(linkToken token: String, request: Request) async throws -> VerificationOutcome {
        let outcome = try await verifyEmailLink(token: token, backend: env.backend, request: request)
        await verified(outcome, method: "link", request: request)
        return outcome
    }

    /// A new password with a reset token, and `password_reset.completed` recorded.
    func completeReset(token: String, newPassword: String, request: Request) async throws -> User {
        let user = try await resetPassword(token: token, newPassword: newPassword, request: request)
        await env.audit.record(
            .passwordResetCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data([:], via: via))
        return user
    }

    /// An email change's token confirmed (keeping no session), and `email_change.confirmed` recorded.
    func completeEmailChange(token: String, password: String?, request: Request) async throws -> User {
        let user = try await confirmEmailChange(token: token, password: password, keeping: nil, request: request).user
        await env.audit.record(
            .emailChangeConfirmed, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data([:], via: via))
        return user
    }

    private func verified(_ outcome: VerificationOutcome, method: String, request: Request) async {
        guard let user = outcome.verifiedUser else { return }
        await env.audit.record(
            .verificationCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(["method": .string(method)], via: via))
    }

    private func admit(_ request: Request) async throws {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
    }
}
