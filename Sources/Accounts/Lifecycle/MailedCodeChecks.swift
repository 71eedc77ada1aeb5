import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Checks of a mailed code or token — verification, the reset code's exchange, the reset itself,
/// an email change's confirmation — whichever way in asks (the pages, PocketBase, InsForge). Each
/// act is whole here: one of the source's code checks (`Budget.codeChecks`, shared with sign-in
/// codes and magic links) taken before the seam compares anything (`.rateLimited` when there is
/// none left), the seam's check, what the act does to Gatehouse's own sessions, and its audit rows
/// either way. The backend keeps each code's own five tries; the budget is what stops a guesser who
/// asks for fresh codes (issue 22: 44,812 reset-code guesses).
public struct MailedCodeChecks: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    var via: String? = nil

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    /// The 6-digit verification code for `email`, checked with the backend's sign-in sessions
    /// (`pageBackend`), which sign in once the address is verified: the outcome's `signIn` is the
    /// session, or the second step the account owes before any session.
    public func completeVerification(email: String, code: String, request: Request) async throws -> VerificationOutcome {
        try await checked(.verificationFailed, ["email": .string(email), "method": "code"], request) {
            try await env.pageBackend.verifyEmail(email: email, code: code)
        } recording: { outcome in
            await verified(outcome, method: "code", request: request)
        }
    }

    /// A verification link's token (it never signs in: mail scanners open links too).
    public func completeVerification(linkToken token: String, request: Request) async throws -> VerificationOutcome {
        try await checked(.verificationFailed, ["method": "link"], request) {
            try await env.backend.verifyEmailLink(token: token)
        } recording: { outcome in
            await verified(outcome, method: "link", request: request)
        }
    }

    /// A mailed reset code traded for a reset token.
    public func exchangeResetCode(email: String, code: String, request: Request) async throws -> String {
        try await checked(.passwordResetFailed, ["email": .string(email), "method": "code"], request) {
            try await env.backend.exchangePasswordResetCode(email: email, code: code)
        } recording: { _ in
        }
    }

    /// Whether a reset link still works, looked at before its form is shown; nil when the backend
    /// cannot tell (its links are checked when used). Spends nothing and counts no try: the token is
    /// 256 random bits, so looking tells a guesser nothing a failed reset would not.
    public func resetLinkWorks(token: String) async -> Bool? {
        guard let inspection = env.backend as? any MailedLinkInspection else { return nil }
        return try? await inspection.passwordResetLinkWorks(token: token)
    }

    /// A new password with a reset token: every Gatehouse session of the account ends (the backend
    /// ended its own), and `password_reset.completed` is recorded. `removingPasskeys`: the owner
    /// recovering from a takeover asks that every passkey go too (a taker's must not outlive it).
    public func completeReset(
        token: String, newPassword: String, removingPasskeys: Bool = false, request: Request
    ) async throws -> User {
        try await checked(.passwordResetFailed, ["method": "link"], request) {
            try await env.backend.resetPassword(token: token, newPassword: newPassword)
        } recording: { user in
            let removed = removingPasskeys ? try await env.database.deletePasskeys(of: user.id) : 0
            await env.audit.record(
                .passwordResetCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
                data: AuditTrail.data(removingPasskeys ? ["passkeys_removed": .number(Double(removed))] : [:], via: via))
            try await env.database.revokeSessions(userID: user.id, at: env.clock())
        }
    }

    /// An email change's mailed token (with the account's password where the backend asks it).
    /// Never through an impersonation. Every Gatehouse session of the account ends; the backend
    /// keeps `signedIn`'s own session going when it is the account's, and the confirmation carries
    /// it for the caller to start afresh.
    public func completeEmailChange(token: String, password: String?, signedIn: SignedIn? = nil, request: Request) async throws
        -> EmailChangeConfirmation
    {
        guard signedIn?.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        let actor = signedIn?.user.id.rawValue
        return try await checked(.emailChangeFailed, ["step": "confirm"], actor: actor, request) {
            try await env.backend.confirmEmailChange(token: token, password: password, keeping: signedIn?.backendSession)
        } recording: { confirmation in
            let keepsBrowser = confirmation.session != nil && signedIn?.user.id == confirmation.user.id
            try await emailChanged(confirmation.user, keptThisBrowser: keepsBrowser, request: request)
        }
    }

    /// A confirmed change: every Gatehouse session of the account ends — not the backend's own
    /// session it kept going (`keeping: 0` leaves those it backs browsers with) — and it is audited.
    func emailChanged(_ user: User, keptThisBrowser: Bool, request: Request) async throws {
        try await env.database.revokeSessions(userID: user.id, keeping: 0, at: env.clock())
        await env.audit.record(
            .emailChangeConfirmed, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(user.email), "keptThisBrowser": .bool(keptThisBrowser)], via: via))
    }

    /// Runs `check` after taking a code check; records `failure` (with the seam's reason) when the
    /// seam refuses, `recording` when it passes.
    private func checked<T: Sendable>(
        _ failure: AuditEvent, _ data: [String: JSONValue], actor: String? = nil, _ request: Request,
        _ check: () async throws -> T, recording: (T) async throws -> Void
    ) async throws -> T {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let result: T
        do {
            result = try await check()
        } catch let error as AuthError {
            await env.audit.record(
                failure, actor: actor, request: request,
                data: AuditTrail.data(data.merging(["reason": .string("\(error)")]) { $1 }, via: via))
            throw error
        }
        try await recording(result)
        return result
    }

    private func verified(_ outcome: VerificationOutcome, method: String, request: Request) async {
        guard let user = outcome.verifiedUser else { return }
        await env.audit.record(
            .verificationCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(["method": .string(method)], via: via))
    }
}
