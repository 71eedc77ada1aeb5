/// Defaults for the optional calls. A backend without `Capability.externalSignIn` cannot take
/// provider identities Gatehouse vouches for (PocketBase runs its own OAuth flows).
extension AuthAPI {
    public func passkeySignInStart(email: String, origin: String) async throws -> PasskeyStart {
        throw AuthError.notSupported(.passkeys)
    }

    public func passkeySignInFinish(transactionID: String, credentialJSON: String) async throws -> AuthSession {
        throw AuthError.notSupported(.passkeys)
    }

    public func passkeyRegistrationStart(origin: String, session: AuthSession) async throws -> PasskeyStart {
        throw AuthError.notSupported(.passkeys)
    }

    public func passkeyRegistrationFinish(transactionID: String, credentialJSON: String, session: AuthSession) async throws {
        throw AuthError.notSupported(.passkeys)
    }

    /// Remote backends mail what their own server mails.
    public func resendVerificationEmail(email: String, withLink: Bool) async throws {
        try await resendVerificationEmail(email: email)
    }

    public func resendVerificationEmail(session: AuthSession) async throws {
        try await resendVerificationEmail(email: session.user.email)
    }

    public func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn {
        throw AuthError.notSupported(.externalSignIn)
    }

    public func link(_ identity: ExternalIdentity, session: AuthSession) async throws -> ExternalAuth {
        throw AuthError.notSupported(.externalSignIn)
    }
}

/// The account lifecycle's defaults: a backend without a capability refuses its calls.
extension AuthAPI {
    public func requestPasswordReset(email: String) async throws { throw AuthError.notSupported(.passwordReset) }

    public func exchangePasswordResetCode(email: String, code: String) async throws -> String {
        throw AuthError.notSupported(.passwordReset)
    }

    public func resetPassword(token: String, newPassword: String) async throws -> User {
        throw AuthError.notSupported(.passwordReset)
    }

    public func changePassword(currentPassword: String, newPassword: String, session: AuthSession) async throws
        -> SignInResult
    {
        throw AuthError.notSupported(.passwordChange)
    }

    public func requestEmailChange(newEmail: String, password: String?, session: AuthSession) async throws {
        throw AuthError.notSupported(.emailChange)
    }

    public var confirmsEmailChangeWithPassword: Bool { false }

    public func confirmEmailChange(token: String, password: String?, keeping: AuthSession?) async throws
        -> EmailChangeConfirmation
    {
        throw AuthError.notSupported(.emailChange)
    }

    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        throw AuthError.notSupported(.emailOTP)
    }

    public func signIn(otpID: String, code: String) async throws -> SignInResult { throw AuthError.notSupported(.emailOTP) }

    public func requestMagicLink(email: String, allowSignUp: Bool, browserBinding: String) async throws {
        throw AuthError.notSupported(.magicLink)
    }

    public func signIn(magicLinkToken: String, browserBinding: String?) async throws -> SignInResult {
        throw AuthError.notSupported(.magicLink)
    }

    public func totpStatus(session: AuthSession) async throws -> TOTPStatus { throw AuthError.notSupported(.totp) }

    public func beginTOTPEnrollment(session: AuthSession) async throws -> TOTPEnrollment {
        throw AuthError.notSupported(.totp)
    }

    public func confirmTOTPEnrollment(code: String, session: AuthSession) async throws -> [String] {
        throw AuthError.notSupported(.totp)
    }

    public func disableTOTP(password: String, session: AuthSession) async throws { throw AuthError.notSupported(.totp) }

    public func regenerateRecoveryCodes(password: String, session: AuthSession) async throws -> [String] {
        throw AuthError.notSupported(.totp)
    }

    public func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession {
        throw AuthError.notSupported(.mfa)
    }

    public func sessions(session: AuthSession) async throws -> [SessionInfo] { throw AuthError.notSupported(.sessionList) }

    public func signOut(sessionID: String, session: AuthSession) async throws {
        throw AuthError.notSupported(.sessionList)
    }

    public func signOutEverywhere(keepingCurrent: Bool, session: AuthSession) async throws {
        throw AuthError.notSupported(.sessionList)
    }
}

extension AuthAdminAPI {
    public func openSession(for id: UserID) async throws -> AuthSession {
        throw AuthError.notSupported(.userAdministration)
    }

    public func totpStatus(of id: UserID) async throws -> TOTPStatus { throw AuthError.notSupported(.totp) }

    public func resetTOTP(of id: UserID) async throws { throw AuthError.notSupported(.totp) }
}

extension AuthAdminAPI {
    public func externalAuths(of userIDs: [UserID]) async throws -> [UserID: [ExternalAuth]] {
        try await withThrowingTaskGroup(of: (UserID, [ExternalAuth]).self) { group in
            for id in userIDs {
                group.addTask { (id, try await externalAuths(of: id)) }
            }
            var result: [UserID: [ExternalAuth]] = [:]
            for try await (id, links) in group { result[id] = links }
            return result
        }
    }
}
