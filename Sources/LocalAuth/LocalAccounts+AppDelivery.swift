import AuthCore
import Foundation
import ServerSeam
import Store

extension LocalAccounts {
    /// A verification link's secret for the account, stored as a mailed link's would be (the
    /// account's older verification tokens die), for an app that mails it itself, bound to the
    /// account's sessions live now; nil when the address is verified or the account disabled.
    public func verificationToken(for id: UserID) async throws -> String? {
        guard let user = try await database.user(id: id) else { throw AuthError.userNotFound }
        guard !user.verified, !user.disabled else { return nil }
        var (token, secret) = verificationLinkToken(
            userID: user.id, email: user.email, now: now(for: user.id), lifetime: configuration.linkLifetime)
        // The app asked without naming a session: spending it keeps the sessions live now.
        token.binding = .app
        _ = try await database.replaceVerificationTokens(with: token, twin: nil)
        logger.info("verification token handed to an app", metadata: ["user": "\(user.id)"])
        return secret
    }

    /// A reset link's secret for the account, stored as a mailed one's would be (older reset
    /// tokens die), for an app that mails it itself; nil for a disabled account.
    public func passwordResetToken(for id: UserID) async throws -> String? {
        guard let user = try await database.user(id: id) else { throw AuthError.userNotFound }
        guard !user.disabled else { return nil }
        let now = self.now(for: user.id)
        let (token, secret) = resetLinkToken(userID: user.id, email: user.email, now: now)
        try await database.replacePasswordResetTokens(with: [token], at: now)
        logger.info("password reset token handed to an app", metadata: ["user": "\(user.id)"])
        return secret
    }

    /// A sign-in code and a single-use link for `email`, stored as mailed ones would be (each
    /// replacing the address's older one; the link bound to no browser), for an app that mails
    /// both itself: the code's request id, the code, the link's secret. Every address gets them,
    /// as every address gets a row on the code page; only an account that may sign in can spend them.
    public func signInSecrets(email: String, allowSignUp: Bool) async throws -> SignInSecrets {
        let code = try await issueEmailOTP(email: email, allowSignUp: allowSignUp)
        let link = try await issueMagicLink(email: email, allowSignUp: allowSignUp, browserBinding: nil)
        logger.info("sign-in code and link handed to an app")
        return SignInSecrets(
            otpID: code.otpID, code: code.code, link: link.secret,
            lifetime: min(configuration.codeLifetime, Self.magicLinkLifetime), maximumAttempts: configuration.maxCodeAttempts)
    }
}
