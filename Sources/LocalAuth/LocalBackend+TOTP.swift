import AuthCore
import Foundation
import Store

/// TOTP and the second sign-in step on the seam (`.totp`, `.mfa`). Every path that opens a session
/// for a sign-in goes through `sessionOrChallenge(for:)`; impersonation (`admin.impersonate`) opens
/// its session directly, so support staff never meet the second step.
extension LocalBackend {
    /// The session for a sign-in whose first step passed — or, when the account has TOTP on,
    /// `.secondStep` with a new challenge (`completeMFA` then opens the session). `firstMethod`
    /// names the first step for the logs ("password", "email_code", "provider", …).
    func sessionOrChallenge(for user: User, firstMethod: String = "other") async throws -> SignInResult {
        if try await accounts.totpEnabled(user.id) {
            return .secondStep(try await accounts.startMFAChallenge(for: user.id, firstMethod: firstMethod))
        }
        return .signedIn(try await openSession(for: user))
    }

    public func totpStatus(session: AuthSession) async throws -> TOTPStatus {
        try owner(of: await database.activeSessionTOTPStatus(tokenHash: accessHash(session.accessToken), now: clock())).value
    }

    public func beginTOTPEnrollment(session: AuthSession) async throws -> TOTPEnrollment {
        try await accounts.beginTOTPEnrollment(try await user(for: session))
    }

    public func confirmTOTPEnrollment(code: String, session: AuthSession) async throws -> [String] {
        try await accounts.confirmTOTPEnrollment(try await userID(for: session), code: code)
    }

    /// Accounts without a password (provider-only) confirm with a current authenticator code.
    public func disableTOTP(password: String, session: AuthSession) async throws {
        try await accounts.disableTOTP(try await userID(for: session), password: password)
    }

    /// Accounts without a password (provider-only) confirm with a current authenticator code.
    public func regenerateRecoveryCodes(password: String, session: AuthSession) async throws -> [String] {
        try await accounts.regenerateRecoveryCodes(try await userID(for: session), password: password)
    }

    public func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession {
        try await openSession(for: try await accounts.completeMFA(challengeID: challengeID, with: factor))
    }
}

extension LocalAdminAPI {
    func totpStatus(of id: UserID) async throws -> TOTPStatus {
        try await accounts.totpStatus(id)
    }

    func resetTOTP(of id: UserID) async throws {
        try await accounts.resetTOTP(id)
    }
}
