import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The core's account routes: emailpassword sign-up and sign-in, the users by id and by address,
/// password reset tokens, `PUT /recipe/user`, and email verification. Tokens the SDK mails itself
/// come from `AppBackendActs`, under the address's mail budgets; checks go through the owners the
/// pages use.
struct SuperTokensAccountRoutes: Sendable {
    let core: SuperTokensCore
    var env: PageEnvironment { core.env }

    func register(on router: inout Router) {
        core.on(&router, .post, "/recipe/signup", tenantScoped: true, signUp)
        core.on(&router, .post, "/recipe/signin", tenantScoped: true, signIn)
        core.on(&router, .get, "/users/by-accountinfo", tenantScoped: true, byAccountInfo)
        core.on(&router, .get, "/user/id") { request, _ in
            guard let user = try await user(try SuperTokensCore.query(request, "userId")) else {
                return SuperTokensCore.status("UNKNOWN_USER_ID_ERROR")
            }
            let directory = UserDirectory(env: env.accounts)
            return SuperTokensCore.status("OK", ["user": try await SuperTokensUser.of(user, in: directory).json])
        }
        core.on(&router, .post, "/recipe/user/password/reset/token", tenantScoped: true, resetToken)
        core.on(&router, .post, "/recipe/user/password/reset/token/consume", tenantScoped: true, consumeResetToken)
        core.on(&router, .put, "/recipe/user", updateUser)
        core.on(&router, .post, "/recipe/user/email/verify/token", tenantScoped: true, verificationToken)
        core.on(&router, .post, "/recipe/user/email/verify", tenantScoped: true, verifyEmail)
        core.on(&router, .post, "/recipe/user/email/verify/remove") { request, body in
            let userID = try SuperTokensCore.text(body, "userId")
            try await core.acts.unverify(UserID(userID), email: try SuperTokensCore.text(body, "email"), request: request)
            return SuperTokensCore.status("OK")
        }
        core.on(&router, .post, "/recipe/user/email/verify/token/remove", tenantScoped: true) { _, body in
            let userID = try SuperTokensCore.text(body, "userId")
            _ = try SuperTokensCore.text(body, "email")
            try await core.acts.revokeVerificationTokens(for: UserID(userID))
            return SuperTokensCore.status("OK")
        }
        core.on(&router, .get, "/recipe/user/email/verify", tenantScoped: true) { request, _ in
            let user = try await user(try SuperTokensCore.query(request, "userId"))
            let email = try SuperTokensCore.query(request, "email")
            let verified = user.map { $0.emailVerified && Self.same($0.email, email) } ?? false
            return SuperTokensCore.status("OK", ["isVerified": .bool(verified)])
        }
    }

    /// A new account, unverified (the app's email-verification recipe decides what that means).
    private func signUp(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let email = try SuperTokensCore.text(body, "email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try SuperTokensCore.text(body, "password")
        let signUp = SignUp(env: env.accounts, via: SuperTokensCore.via, policy: .superTokensCore)
        let user: User
        do {
            user = try await signUp.attemptWithoutSession(
                SignUpRequest(email: email, password: password), profile: [:],
                for: .app(userAgent: request.headers["User-Agent"], ip: request.remoteAddress), request: request)
        } catch AuthError.emailExists {
            await signUp.refusedExistingAddress(email, request: request)
            return SuperTokensCore.status("EMAIL_ALREADY_EXISTS_ERROR")
        }
        return Self.signedIn(user)
    }

    /// A password checked; the app opens the session next (`POST /recipe/session`). For an account
    /// with an authenticator the sign-in's second step waits for `totp/verify`: the SDK's MFA
    /// recipe asks for it before the session counts as signed in.
    private func signIn(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let email = try SuperTokensCore.text(body, "email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try SuperTokensCore.text(body, "password")
        let result = try await PasswordSignIn(env: env.accounts, via: SuperTokensCore.via, policy: .superTokensCore)
            .attempt(email: email, password: password, request: request)
        if case .refused(.throttled(let wait)) = result { throw AuthError.rateLimited(retryAfter: wait) }
        if case .refused(.disabled) = result {
            // SuperTokens' refusal with a reason (its FDI's word); the Python SDK reads any
            // status but OK as wrong credentials.
            return SuperTokensCore.status("SIGN_IN_NOT_ALLOWED", ["reason": .string("The account is disabled.")])
        }
        guard let user = try await core.signedInUser(result, email: email) else {
            return SuperTokensCore.status("WRONG_CREDENTIALS_ERROR")
        }
        return Self.signedIn(user)
    }

    /// The accounts with this address (the only account info Gatehouse keeps).
    private func byAccountInfo(_ request: Request, _: [String: JSONValue]) async throws -> Response {
        guard let email = try request.query.single("email")?.trimmingCharacters(in: .whitespacesAndNewlines), !email.isEmpty
        else { return SuperTokensCore.status("OK", ["users": .array([])]) }
        let users = try await core.accounts(email: email)
        var answered: [JSONValue] = []
        for user in users { answered.append(try await SuperTokensUser.of(user, in: UserDirectory(env: env.accounts)).json) }
        return SuperTokensCore.status("OK", ["users": .array(answered)])
    }

    private func resetToken(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try SuperTokensCore.text(body, "userId")
        do {
            let token = try await core.acts.passwordResetToken(for: UserID(userID), request: request)
            return SuperTokensCore.status("OK", ["token": .string(token)])
        } catch AuthError.userNotFound {
            return SuperTokensCore.status("UNKNOWN_USER_ID_ERROR")
        }
    }

    /// Spends a reset token. The core only spends it (the app sets the new password next, with
    /// `PUT /recipe/user`); Gatehouse's reset sets a password, so it sets a random one the app's
    /// replaces at once — the old password stops working here, and every session ends.
    private func consumeResetToken(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        try await spending(body, invalid: "RESET_PASSWORD_INVALID_TOKEN_ERROR") { token in
            try await MailedCodeChecks(env: env.accounts, via: SuperTokensCore.via).completeReset(
                token: token, newPassword: SecureRandom.token(), request: request)
        }
    }

    private func updateUser(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try SuperTokensCore.text(body, "recipeUserId")
        let email = try SuperTokensCore.optionalText(body, "email")
        let password = try SuperTokensCore.optionalText(body, "password")
        do {
            _ = try await core.acts.update(UserID(userID), email: email, password: password, request: request)
            return SuperTokensCore.status("OK")
        } catch AuthError.userNotFound {
            return SuperTokensCore.status("UNKNOWN_USER_ID_ERROR")
        } catch AuthError.emailExists {
            return SuperTokensCore.status("EMAIL_ALREADY_EXISTS_ERROR")
        } catch AuthError.validation(let fields) where password != nil {
            return SuperTokensCore.status(
                "PASSWORD_POLICY_VIOLATED_ERROR", ["failureReason": .string(fields.map(\.message).joined(separator: " "))])
        }
    }

    private func verificationToken(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        let userID = try SuperTokensCore.text(body, "userId")
        _ = try SuperTokensCore.text(body, "email")
        do {
            guard let token = try await core.acts.verificationToken(for: UserID(userID), request: request) else {
                return SuperTokensCore.status("EMAIL_ALREADY_VERIFIED_ERROR")
            }
            return SuperTokensCore.status("OK", ["token": .string(token)])
        } catch AuthError.userNotFound {
            // The core mints tokens for any user id; Gatehouse's are its accounts'.
            return SuperTokensCore.status("EMAIL_ALREADY_VERIFIED_ERROR")
        }
    }

    private func verifyEmail(_ request: Request, _ body: [String: JSONValue]) async throws -> Response {
        try await spending(body, invalid: "EMAIL_VERIFICATION_INVALID_TOKEN_ERROR") { token in
            try await MailedCodeChecks(env: env.accounts, via: SuperTokensCore.via).completeVerification(
                linkToken: token, request: request
            ).verifiedUser
        }
    }

    /// A mailed token (`token`) spent by `spend`: `OK` with its account, or `invalid` for an unknown,
    /// spent or expired one.
    private func spending(
        _ body: [String: JSONValue], invalid: String, _ spend: (String) async throws -> User?
    ) async throws -> Response {
        let token = try SuperTokensCore.text(body, "token")
        do {
            guard let user = try await spend(token) else { return SuperTokensCore.status(invalid) }
            return SuperTokensCore.status("OK", ["userId": .string(user.id.rawValue), "email": .string(user.email)])
        } catch AuthError.invalidCode, AuthError.codeExpired {
            return SuperTokensCore.status(invalid)
        }
    }

    private func user(_ id: String) async throws -> User? {
        do {
            return try await UserDirectory(env: env.accounts).user(UserID(id))
        } catch AuthError.userNotFound {
            return nil
        }
    }

    /// Sign-up's and sign-in's answer.
    private static func signedIn(_ user: User) -> Response {
        SuperTokensCore.status(
            "OK", ["user": SuperTokensUser(user: user).json, "recipeUserId": .string(user.id.rawValue)])
    }

    static func same(_ one: String, _ other: String) -> Bool {
        EmailAddress.normalize(one) == EmailAddress.normalize(other)
    }
}
