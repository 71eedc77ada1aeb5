import AuthCore
import ServerSeam

/// Accounts whose only way in is their authenticator app, on the seam (`LocalAccounts`' rule).
extension LocalBackend: AuthenticatorOnlyAccounts {
    public func signIn(email: String, authenticatorCode code: String) async throws -> AuthSession {
        try await openSession(for: try await accounts.authenticatorOnlySignIn(email: email, code: code))
    }
}
