import AuthCore
import Foundation
import ServerSeam
import Store

/// Password reset and change on the embedded backend (`.passwordReset`, `.passwordChange`), and a
/// look at a reset link before its form is shown (`MailedLinkInspection`).
extension LocalBackend: MailedLinkInspection {
    public func requestPasswordReset(email: String) async throws {
        try await accounts.requestPasswordReset(email: email)
    }

    public func passwordResetLinkWorks(token: String) async throws -> Bool {
        try await accounts.resetTokenIsLive(token)
    }

    public func exchangePasswordResetCode(email: String, code: String) async throws -> String {
        try await accounts.exchangePasswordResetCode(email: email, code: code)
    }

    /// Sets the password and revokes every session of the account — API tokens, refresh families
    /// and browser sessions (they share the `sessions` table) — in the same transaction.
    public func resetPassword(token: String, newPassword: String) async throws -> User {
        try await accounts.resetPassword(token: token, newPassword: newPassword)
    }

    /// Keeps `session` and revokes the account's other sessions. When the pages call it (opened for
    /// `.browserSession`), the browser sessions themselves are left to the web layer, which keeps
    /// the one the change was made from and ends the others; the sessions behind those other
    /// browsers are revoked here, so they are signed out even before. Called by an app, every other
    /// session goes, browser sessions included. Impersonation sessions may not change credentials.
    public func changePassword(currentPassword: String, newPassword: String, session: AuthSession) async throws
        -> SignInResult
    {
        guard let record = try await database.activeSession(tokenHash: accessHash(session.accessToken), now: clock())
        else { throw AuthError.sessionExpired }
        guard record.impersonator == nil else { throw Self.impersonationRefusal }
        try await accounts.changePassword(
            userID: record.userID, currentPassword: currentPassword, newPassword: newPassword, keeping: record.id,
            leavingBrowserSessions: client == .browserSession)
        var kept = session
        kept.user = try await user(for: session)
        return .signedIn(kept)
    }

    static let impersonationRefusal = AuthError.server(
        status: 403, code: "forbidden", message: "The password can't be changed while impersonating.")
}
