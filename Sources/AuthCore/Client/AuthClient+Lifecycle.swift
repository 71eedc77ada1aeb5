import Foundation

/// Where `signOut(scope:)` signs out (Rownd's `signOut(scope:)`).
public enum SignOutScope: Sendable {
    /// This client only (`signOut()`).
    case local
    /// Every other session of the account; this one stays.
    case others
    /// Every session of the account, this one included.
    case all
}

/// The account lifecycle on the client, named after the SDKs Gatehouse stands in for (InsForge for
/// reset, PocketBase for email change and OTP, Descope for password replace, Rownd for sign-out
/// scopes). Each call is one seam call; a backend without the capability throws `.notSupported`.
extension AuthClient {
    // MARK: Password reset and change

    /// Mails a reset link (and code). Answers the same for unknown addresses.
    public func sendResetPasswordEmail(email: String) async throws {
        try await api.requestPasswordReset(email: email)
    }

    /// Trades a mailed reset code for the token `resetPassword` takes.
    public func exchangeResetPasswordToken(email: String, code: String) async throws -> String {
        try await api.exchangePasswordResetCode(email: email, code: code)
    }

    /// Sets a new password with a reset token. Every session of the account ends, this client's too.
    @discardableResult
    public func resetPassword(token: String, newPassword: String) async throws -> User {
        let user = try await api.resetPassword(token: token, newPassword: newPassword)
        if session?.user.id == user.id { try await replace(with: nil, event: .signedOut) }
        return user
    }

    /// Replaces the password after checking the current one; other sessions end, this one goes on.
    public func replacePassword(currentPassword: String, newPassword: String) async throws {
        let current = try await requireSession()
        let result = try await authorized(current) {
            try await self.api.changePassword(currentPassword: currentPassword, newPassword: newPassword, session: $0)
        }
        // A backend that ends every session (PocketBase) may ask the fresh sign-in's second step:
        // this client is then signed out, and signs in again.
        try await replace(with: result.session, event: result.session == nil ? .signedOut : .tokenRefreshed)
    }

    // MARK: Email change

    /// Mails a confirmation link to `newEmail` after checking the password.
    public func requestEmailChange(newEmail: String, password: String) async throws {
        let current = try await requireSession()
        try await authorized(current) {
            try await self.api.requestEmailChange(newEmail: newEmail, password: password, session: $0)
        }
    }

    /// Confirms a change with the mailed token (and the password where the backend asks again).
    /// This client stays signed in when its session is the account's; the others end.
    @discardableResult
    public func confirmEmailChange(token: String, password: String? = nil) async throws -> User {
        let confirmation = try await api.confirmEmailChange(token: token, password: password, keeping: session)
        if let kept = confirmation.session {
            try await replace(with: kept, event: .userUpdated)
        } else if session?.user.id == confirmation.user.id {
            try await replace(with: nil, event: .signedOut)
        }
        return confirmation.user
    }

    // MARK: Sessions made elsewhere

    /// Signs in with a session the backend handed over outside the facade — a hosted sign-in's code
    /// exchange (`InsForgeBackend.handleAuthCallback`) — so refresh, the current user and sign-out
    /// work on it like on any other.
    public func adopt(_ session: AuthSession) async throws {
        try await replace(with: session, event: .signedIn)
    }

    // MARK: Passwordless

    /// Mails a one-time sign-in code; returns the id `signIn(otpId:code:)` takes.
    public func requestOTP(email: String, allowSignUp: Bool = false) async throws -> String {
        try await api.requestEmailOTP(email: email, allowSignUp: allowSignUp)
    }

    /// Signs in with a mailed one-time code (PocketBase's `authWithOTP`).
    @discardableResult
    public func signIn(otpId: String, code: String) async throws -> SignInResult {
        try await keep(try await api.signIn(otpID: otpId, code: code))
    }

    /// Mails a magic link that signs in this client: `browserBinding` is what it shows again with
    /// the link's token (a native app keeps a random value for the time the link lives).
    public func sendMagicLink(email: String, allowSignUp: Bool = false, browserBinding: String) async throws {
        try await api.requestMagicLink(email: email, allowSignUp: allowSignUp, browserBinding: browserBinding)
    }

    /// Signs in with a magic link's token.
    @discardableResult
    public func signIn(magicLinkToken: String, browserBinding: String?) async throws -> SignInResult {
        try await keep(try await api.signIn(magicLinkToken: magicLinkToken, browserBinding: browserBinding))
    }

    // MARK: Two-step sign-in

    public func totpStatus() async throws -> TOTPStatus {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.totpStatus(session: $0) }
    }

    /// A new authenticator key; `confirmTOTP(code:)` turns it on.
    public func enrollTOTP() async throws -> TOTPEnrollment {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.beginTOTPEnrollment(session: $0) }
    }

    /// Turns TOTP on with a first code; returns the recovery codes, shown this once.
    public func confirmTOTP(code: String) async throws -> [String] {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.confirmTOTPEnrollment(code: code, session: $0) }
    }

    public func disableTOTP(password: String) async throws {
        let current = try await requireSession()
        try await authorized(current) { try await self.api.disableTOTP(password: password, session: $0) }
    }

    public func regenerateRecoveryCodes(password: String) async throws -> [String] {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.regenerateRecoveryCodes(password: password, session: $0) }
    }

    /// Finishes a sign-in that answered `.secondStep(challenge)`.
    @discardableResult
    public func completeMFA(_ challenge: MFAChallenge, with factor: SecondFactor) async throws -> AuthSession {
        let session = try await api.completeMFA(challengeID: challenge.id, with: factor)
        try await replace(with: session, event: .signedIn)
        return session
    }

    // MARK: Sessions

    /// Where the account is signed in, this session marked `current`.
    public func listSessions() async throws -> [SessionInfo] {
        let current = try await requireSession()
        return try await authorized(current) { try await self.api.sessions(session: $0) }
    }

    /// Ends one of the account's other sessions.
    public func signOut(sessionId: String) async throws {
        let current = try await requireSession()
        try await authorized(current) { try await self.api.signOut(sessionID: sessionId, session: $0) }
    }

    /// Signs out here, everywhere else, or everywhere.
    public func signOut(scope: SignOutScope) async throws {
        switch scope {
        case .local:
            try await signOut()
        case .others:
            let current = try await requireSession()
            try await authorized(current) { try await self.api.signOutEverywhere(keepingCurrent: true, session: $0) }
        case .all:
            let current = try await requireSession()
            try await authorized(current) { try await self.api.signOutEverywhere(keepingCurrent: false, session: $0) }
            try await replace(with: nil, event: .signedOut)
        }
    }
}
