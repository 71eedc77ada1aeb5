import Foundation

/// The authenticator app, the second step and the password change over Descope's auth API.
/// Descope keeps no recovery codes, and turning an app off needs its management key.
extension DescopeBackend {
    /// Whether `me` reports an authenticator app; Descope keeps no recovery codes.
    public func totpStatus(session: AuthSession) async throws -> TOTPStatus {
        TOTPStatus(enabled: try await me(session).totp, recoveryCodesLeft: 0)
    }

    /// A key for the person's authenticator app (`totp/update {loginId}` with the refresh JWT).
    public func beginTOTPEnrollment(session: AuthSession) async throws -> TOTPEnrollment {
        struct Key: Decodable {
            var provisioningURL: String
            var key: String
        }
        let key = try await http.json(
            Key.self, "POST", "auth/totp/update", refreshJwt: try refreshJwt(of: session),
            body: ["loginId": .string(session.user.email)])
        return TOTPEnrollment(secret: key.key, provisioningURL: key.provisioningURL)
    }

    /// The key's first code (`totp/verify {loginId, code}` with the refresh JWT). Descope hands
    /// out no recovery codes: the list is empty.
    public func confirmTOTPEnrollment(code: String, session: AuthSession) async throws -> [String] {
        try await http.send(
            "POST", "auth/totp/verify", refreshJwt: try refreshJwt(of: session),
            body: ["loginId": .string(session.user.email), "code": .string(code)])
        return []
    }

    /// A sign-in that stopped at its second step (the challenge names the login id) completes with
    /// the authenticator's code (`totp/verify {loginId, code}`). Descope has no recovery codes.
    public func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession {
        guard case .totp(let code) = factor else { throw AuthError.notSupported(.mfa) }
        return try session(
            from: try await http.json(
                DescopeJWTResponse.self, "POST", "auth/totp/verify",
                body: ["loginId": .string(challengeID), "code": .string(code)]))
    }

    /// `password/replace {loginId, oldPassword, newPassword}`: the answer is the session to go on with.
    public func changePassword(currentPassword: String, newPassword: String, session: AuthSession) async throws
        -> SignInResult
    {
        .signedIn(
            try self.session(
                from: try await http.json(
                    DescopeJWTResponse.self, "POST", "auth/password/replace",
                    body: [
                        "loginId": .string(session.user.email), "oldPassword": .string(currentPassword),
                        "newPassword": .string(newPassword)
                    ])))
    }
}
