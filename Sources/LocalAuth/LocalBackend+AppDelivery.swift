import AuthCore
import ServerSeam

extension LocalBackend: AppDeliveredSecrets {
    public func verificationToken(for id: UserID) async throws -> String? {
        try await accounts.verificationToken(for: id)
    }

    public func revokeVerificationTokens(for id: UserID) async throws {
        try await accounts.database.revokeVerificationTokens(userID: id, at: accounts.clock())
    }

    public func passwordResetToken(for id: UserID) async throws -> String? {
        try await accounts.passwordResetToken(for: id)
    }

    public func signInSecrets(email: String, allowSignUp: Bool) async throws -> SignInSecrets {
        try await accounts.signInSecrets(email: email, allowSignUp: allowSignUp)
    }

    public func checkSignInCode(otpID: String, code: String) async throws {
        _ = try await accounts.checkedCode(otpID: otpID, code: code)
    }

    public func checkSignInLink(token: String) async throws {
        _ = try await accounts.liveLink(token)
    }
}
