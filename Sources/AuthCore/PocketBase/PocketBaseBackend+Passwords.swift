import Foundation

/// Password reset and change on PocketBase (`.passwordReset`, `.passwordChange`). PocketBase mails
/// a link only (its token is a JWT of type `passwordReset`, 30 minutes by default) and invalidates
/// every token of the account when its password changes.
extension PocketBaseBackend {
    /// PocketBase answers alike for unknown addresses.
    public func requestPasswordReset(email: String) async throws {
        try await http.send(
            "POST", "\(collectionPath)/request-password-reset",
            body: ["email": .string(email.trimmingCharacters(in: .whitespacesAndNewlines))])
    }

    /// PocketBase mails no reset codes: pages ask `verificationMode` and offer only the link.
    public func exchangePasswordResetCode(email: String, code: String) async throws -> String {
        throw AuthError.notSupported(.passwordReset)
    }

    /// Confirms the reset; PocketBase then ends every session of the account (its tokenKey changes,
    /// which also kills this and any older reset token). The account is read back through the
    /// superuser when one is configured, else described from the token's claims.
    public func resetPassword(token: String, newPassword: String) async throws -> User {
        if let problem = PasswordPolicy.problem(with: newPassword) {
            throw AuthError.validation([FieldError(field: "password", message: problem)])
        }
        guard let claims = PocketBaseToken.decode(token), claims.type == "passwordReset", let id = claims.id else {
            throw AuthError.invalidCode
        }
        if let expiresAt = claims.expiresAt, expiresAt < clock() { throw AuthError.codeExpired }
        try await http.send(
            "POST", "\(collectionPath)/confirm-password-reset",
            body: ["token": .string(token), "password": .string(newPassword), "passwordConfirm": .string(newPassword)])
        logger.info("password reset on PocketBase", metadata: ["user": "\(id)"])
        if superuser != nil { return try await admin.user(UserID(id)) }
        let now = clock()
        return User(
            id: UserID(id), email: claims.email ?? "", emailVerified: true, profile: Profile(), createdAt: now, updatedAt: now)
    }

    /// Updates the record as the user with `oldPassword`, then signs in again with the new password:
    /// PocketBase has invalidated every token of the account, this one included.
    public func changePassword(currentPassword: String, newPassword: String, session: AuthSession) async throws
        -> SignInResult
    {
        // An impersonation token (not refreshable) may not change credentials.
        guard session.refreshable, PocketBaseToken.decode(session.accessToken)?.refreshable != false else {
            throw AuthError.server(
                status: 403, code: "forbidden", message: "The password can't be changed while impersonating.")
        }
        if let problem = PasswordPolicy.problem(with: newPassword) {
            throw AuthError.validation([FieldError(field: "password", message: problem)])
        }
        let id = try Self.safeID(session.user.id)
        let record: PocketBaseRecord
        do {
            record = try await http.json(
                PocketBaseRecord.self, "PATCH", "\(records)/\(id)", token: session.accessToken,
                body: [
                    "oldPassword": .string(currentPassword), "password": .string(newPassword),
                    "passwordConfirm": .string(newPassword)
                ], call: .ownRecord)
        } catch AuthError.validation(let fields) where fields.contains(where: { $0.field == "oldPassword" }) {
            throw AuthError.invalidCredentials
        }
        logger.info("password changed on PocketBase", metadata: ["user": "\(id)"])
        let email = record.user(profileField: configuration.profileField).email
        return try await signIn(email: email.isEmpty ? session.user.email : email, password: newPassword)
    }

    /// The reset mail's template, its link pointing at Gatehouse's `/auth/reset-password?token=`.
    static func resetPasswordTemplate(linkBase base: String, subject: JSONValue?) -> JSONValue {
        .object([
            "subject": subject ?? .string("Reset your {APP_NAME} password"),
            "body": .string(
                """
                <p>Hello,</p>
                <p>Someone asked to reset the password of your {APP_NAME} account.</p>
                <p><a class="btn" href="\(base)/auth/reset-password?token={TOKEN}" target="_blank" rel="noopener">Choose a new password</a></p>
                <p><i>If you didn't ask, ignore this email: your password stays as it is.</i></p>
                <p>Thanks,<br/>{APP_NAME} team</p>
                """)
        ])
    }
}
