import AuthCore
import ServerSeam

/// A signed-in account's authenticator code checked on the seam as a second step of its own
/// (first method `session`), so the code is spent once and a wrong one counts among the account's
/// recent wrong tries, as `LocalAccounts`' second steps do.
extension LocalBackend: AuthenticatorStepUps {
    public func checkAuthenticatorCode(_ code: String, session: AuthSession) async throws -> Bool {
        let user = try await currentUser(session)
        guard try await accounts.totpEnabled(user.id) else { throw AuthError.notSupported(.totp) }
        let step = try await accounts.startMFAChallenge(for: user.id, firstMethod: "session")
        do {
            _ = try await accounts.completeMFA(challengeID: step.id, with: .totp(code: code))
            return true
        } catch AuthError.invalidCode, AuthError.codeExpired {
            return false
        }
    }
}
