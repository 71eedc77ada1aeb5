import AuthCore
import Foundation
import Store

extension LocalAccounts {
    /// A verification link's secret for the account, stored as a mailed link's would be (the
    /// account's older verification tokens die), for an app that mails it itself; nil when the
    /// address is verified or the account disabled.
    public func verificationToken(for id: UserID) async throws -> String? {
        guard let user = try await database.user(id: id) else { throw AuthError.userNotFound }
        guard !user.verified, !user.disabled else { return nil }
        let (token, secret) = verificationLinkToken(
            userID: user.id, email: user.email, now: clock(), lifetime: configuration.linkLifetime)
        _ = try await database.replaceVerificationTokens(with: token, twin: nil)
        logger.info("verification token handed to an app", metadata: ["user": "\(user.id)"])
        return secret
    }

    /// A reset link's secret for the account, stored as a mailed one's would be (older reset
    /// tokens die), for an app that mails it itself; nil for a disabled account.
    public func passwordResetToken(for id: UserID) async throws -> String? {
        guard let user = try await database.user(id: id) else { throw AuthError.userNotFound }
        guard !user.disabled else { return nil }
        let now = clock()
        let (token, secret) = resetLinkToken(userID: user.id, email: user.email, now: now)
        try await database.replacePasswordResetTokens(with: [token], at: now)
        logger.info("password reset token handed to an app", metadata: ["user": "\(user.id)"])
        return secret
    }
}
