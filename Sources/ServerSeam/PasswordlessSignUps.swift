import AuthCore

/// A backend that makes accounts with no password, under an id the caller chose: the embedded
/// one. A passkey sign-up needs both — the credential's user handle (the account's id) is fixed
/// when the browser makes the passkey, before the account exists, and the passkey is its only
/// credential. Backends without it answer `notSupported(.passkeys)`.
public protocol PasswordlessSignUps: AuthAPI {
    /// Signs up `email` with no password, as `signUp` does otherwise (the same checks of the
    /// address and name, the same verification mail and session rules).
    func signUpWithoutPassword(id: UserID, email: String, name: String?) async throws -> SignUpOutcome
}

extension AuthAPI {
    /// This backend's passwordless sign-up (`PasswordlessSignUps`); `notSupported` elsewhere.
    public func signUpWithoutPassword(id: UserID, email: String, name: String?) async throws -> SignUpOutcome {
        guard let backend = self as? any PasswordlessSignUps else { throw AuthError.notSupported(.passkeys) }
        return try await backend.signUpWithoutPassword(id: id, email: email, name: name)
    }
}
