import AuthCore
import Foundation

/// Mailed secrets an app's own backend delivers itself instead of the server mailing them (a
/// SuperTokens backend SDK mails its own verification and reset links): the backend mints and
/// stores each under the rules of the one it would have mailed — lifetime, single use, older ones
/// dying — and hands it over. The embedded backend has it; remote backends mail their own.
public protocol AppDeliveredSecrets: Sendable {
    /// A verification link token for the account's address, spent by `verifyEmailLink(token:)`;
    /// nil when the address is verified already or the account is disabled. `.userNotFound` for
    /// no such account.
    func verificationToken(for id: UserID) async throws -> String?
    /// Ends every live verification token of the account (the app's earlier links stop working).
    func revokeVerificationTokens(for id: UserID) async throws
    /// A password-reset link token (the account's older ones die), spent by
    /// `resetPassword(token:newPassword:)`; nil for a disabled account. `.userNotFound` for none.
    func passwordResetToken(for id: UserID) async throws -> String?
    /// A sign-in code (spent by `signIn(otpID:code:)`) and a single-use link's token (spent by
    /// `signIn(magicLinkToken:browserBinding: nil)`) for `email`, each replacing the address's older
    /// one. `allowSignUp` lets an address without an account sign up by spending either.
    func signInSecrets(email: String, allowSignUp: Bool) async throws -> SignInSecrets
    /// Checks a sign-in code without spending it (one of its tries taken, as `signIn(otpID:code:)`
    /// takes one): `.invalidCode` when wrong, `.codeExpired` when dead or out of tries.
    func checkSignInCode(otpID: String, code: String) async throws
    /// Checks a sign-in link's token without spending it: `.invalidCode` when unknown,
    /// `.codeExpired` when spent or expired.
    func checkSignInLink(token: String) async throws
}

/// A sign-in code and link handed to an app to mail (`AppDeliveredSecrets.signInSecrets`).
public struct SignInSecrets: Sendable {
    /// The code's request id (`signIn(otpID:code:)`).
    public var otpID: String
    public var code: String
    /// The link's token (`signIn(magicLinkToken:browserBinding:)`).
    public var link: String
    /// How long the code works (the link works at least as long).
    public var lifetime: TimeInterval
    /// How many wrong codes end the code.
    public var maximumAttempts: Int

    public init(otpID: String, code: String, link: String, lifetime: TimeInterval, maximumAttempts: Int) {
        (self.otpID, self.code, self.link, self.lifetime, self.maximumAttempts) = (otpID, code, link, lifetime, maximumAttempts)
    }
}
