import Foundation

/// PocketBase's multi-factor sign-in (`.mfa`): when its collection has MFA on, the first method
/// (the password) answers 401 `{mfaId}` — `SignInResult.secondStep` here — and a second, different method
/// carrying that `mfaId` completes it. PocketBase has no authenticator codes, so the second method
/// is a mailed one-time code (`requestEmailOTP`, then `.emailOTP(otpID:code:)`).
extension PocketBaseBackend {
    public func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession {
        guard case .emailOTP(let otpID, let code) = factor else { throw AuthError.notSupported(.totp) }
        let reply = try await http.json(
            PocketBaseAuthReply.self, "POST", "\(collectionPath)/auth-with-otp",
            body: [
                "otpId": .string(otpID), "password": .string(code.filter { !$0.isWhitespace }),
                "mfaId": .string(challengeID)
            ], call: .verify)
        return session(from: reply)
    }
}
