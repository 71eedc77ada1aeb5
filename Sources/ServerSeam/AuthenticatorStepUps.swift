import AuthCore

/// A backend that checks a signed-in account's authenticator code outside any sign-in (a step-up:
/// SuperTokens' `totp/verify` in a session that owes nothing), under the second step's rules: the
/// code is spent once, and the account's recent wrong tries count as at `/auth/mfa`. The embedded
/// backend has it.
public protocol AuthenticatorStepUps: AuthAPI {
    /// Whether `code` is a current, unspent code of the session's account's authenticator app;
    /// `.notSupported(.totp)` when the account has none on, `.sessionExpired` for an ended session.
    func checkAuthenticatorCode(_ code: String, session: AuthSession) async throws -> Bool
}
