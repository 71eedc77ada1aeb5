import AuthCore

/// A backend whose accounts may have an authenticator app as their only way in (Descope's
/// `totp/signup`): no password, no passkey, no linked provider. The app's code alone signs such an
/// account in — the first code turns its pending key on — under the second step's per-account
/// limits. An account with another way in is refused alike (`.invalidCode`): there the code stays
/// a second step. The embedded backend has it.
public protocol AuthenticatorOnlyAccounts: AuthAPI {
    /// A session for the account at `email` on its authenticator's `code`. Wrong, reused, or an
    /// account with another way in: `.invalidCode`; out of tries: `.codeExpired`.
    func signIn(email: String, authenticatorCode code: String) async throws -> AuthSession
}
