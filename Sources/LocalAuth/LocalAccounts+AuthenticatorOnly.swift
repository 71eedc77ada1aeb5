import AuthCore
import Foundation
import Store

extension LocalAccounts {
    /// The account at `email` when its authenticator app is its only way in, signed in by `code`:
    /// with the app on, as a second step that had no first (a challenge of its own, so the account's
    /// recent wrong tries count as at `/auth/mfa`); with the key still pending (just signed up), the
    /// first right code turns it on. Any other account reads like a wrong code.
    func authenticatorOnlySignIn(email: String, code: String) async throws -> User {
        guard let user = try await database.user(email: email), !user.disabled, user.passwordHash == nil,
            try await database.passkeys(of: user.id).isEmpty, try await database.externalAuths(userID: user.id).isEmpty
        else { throw AuthError.invalidCode }
        if try await totpEnabled(user.id) {
            let challenge = try await startMFAChallenge(for: user.id, firstMethod: "none")
            return try await completeMFA(challengeID: challenge.id, with: .totp(code: code))
        }
        _ = try await confirmTOTPEnrollment(user.id, code: code)
        return user.user
    }
}
