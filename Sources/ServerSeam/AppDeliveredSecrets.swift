import AuthCore

/// Mailed secrets an app's own backend delivers itself instead of the server mailing them (a
/// SuperTokens backend SDK mails its own verification and reset links): the backend mints and
/// stores each under the rules of the one it would have mailed — lifetime, single use, older ones
/// dying — and hands it over. The embedded backend has it; remote backends mail their own.
public protocol AppDeliveredSecrets: Sendable {
    /// A verification link token for the account's address, spent by `verifyEmailLink(token:)`;
    /// nil when the address is verified already or the account is disabled. `.userNotFound` for
    /// no such account.
    func verificationToken(for id: UserID) async throws -> String?
    /// A password-reset link token (the account's older ones die), spent by
    /// `resetPassword(token:newPassword:)`; nil for a disabled account. `.userNotFound` for none.
    func passwordResetToken(for id: UserID) async throws -> String?
}
