import AuthCore
import Foundation
import HTTPServer

/// The authenticator app as an app's own backend manages it for a person it signed in itself (a
/// SuperTokens backend's TOTP recipe, trusted by the server's API key, checks the person's session
/// and completed second step before it asks): by account id, with the same key, enrolment window,
/// code-check budget and audit (`totp.enabled`, `totp.disabled`, naming the way in) as the pages.
/// The backend's enrolment calls take a session, so each opens one for the account and closes it.
extension AuthenticatorApp {
    /// Whether the account's authenticator is on; `.userNotFound` for no account.
    func status(of id: UserID) async throws -> TOTPStatus {
        try await env.backend.admin.totpStatus(of: id)
    }

    /// The pending key to scan (the same one while it is fresh); a validation error when the
    /// authenticator is on already.
    public func beginEnrollment(for id: UserID) async throws -> TOTPEnrollment {
        try await withBackendSession(of: id) { try await env.pageBackend.beginTOTPEnrollment(session: $0) }
    }

    /// Turns the authenticator on with its first code. The recovery codes are not returned: the
    /// app's backend has nowhere to show them (the person makes new ones on the account pages).
    /// Throws `.rateLimited` when the source has no code checks left, `.invalidCode`, `.codeExpired`.
    public func confirmEnrollment(code: String, for id: UserID, via: String, request: Request) async throws {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        _ = try await withBackendSession(of: id) { try await env.pageBackend.confirmTOTPEnrollment(code: code, session: $0) }
        await env.audit.record(
            .totpEnabled, actor: id.rawValue, subject: id.rawValue, request: request, data: AuditTrail.data([:], via: via))
    }

    /// Turns the authenticator off and drops its key, pending key and recovery codes.
    public func remove(for id: UserID, via: String, request: Request) async throws {
        try await env.backend.admin.resetTOTP(of: id)
        await env.audit.record(
            .totpDisabled, actor: id.rawValue, subject: id.rawValue, request: request, data: AuditTrail.data([:], via: via))
    }

    private func withBackendSession<T: Sendable>(of id: UserID, _ act: (AuthSession) async throws -> T) async throws -> T {
        let session = try await env.pageBackend.admin.openSession(for: id)
        do {
            let result = try await act(session)
            try? await env.pageBackend.signOut(session)
            return result
        } catch {
            try? await env.pageBackend.signOut(session)
            throw error
        }
    }
}
