import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// What an app's own backend does for a person it deals with itself — a SuperTokens backend SDK,
/// trusted by the server's API key, which mails its own links and sets passwords after its own
/// checks: it takes verification and reset tokens to deliver (the address's mail budgets and the
/// audit as if Gatehouse had mailed them), and changes an account's password or address (every
/// session of the account then ends, as for a staff change). Each act's audit names the way in.
public struct AppBackendActs: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("supertokens-core").
    let via: String

    public init(env: Accounts, via: String) { (self.env, self.via) = (env, via) }

    /// A verification link token for the account to mail itself, spent by
    /// `MailedCodeChecks.completeVerification(linkToken:)`; nil when the address is verified already.
    /// `.rateLimited` when the address's verification mails are spent, `.userNotFound` for no account.
    public func verificationToken(for id: UserID, request: Request) async throws -> String? {
        let user = try await env.backend.admin.user(id)
        if user.emailVerified { return nil }
        if let refusal = await env.budgets.take(.verificationMailsTo(user.email)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let token = try await secrets().verificationToken(for: id)
        await env.audit.record(
            .verificationRequested, subject: id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(user.email), "delivery": "app"], via: via))
        return token
    }

    /// Ends the account's live verification tokens (the core's `verify/token/remove`); nothing for
    /// an unknown account.
    public func revokeVerificationTokens(for id: UserID) async throws {
        try await secrets().revokeVerificationTokens(for: id)
    }

    /// Marks the account's address unverified when it is `email` (the core's `verify/remove`: the
    /// app's own email-verification recipe asks again), audited as a change by the app's backend;
    /// nothing for another address or an unknown account.
    public func unverify(_ id: UserID, email: String, request: Request) async throws {
        guard let user = try? await env.backend.admin.user(id), user.emailVerified,
            EmailAddress.normalize(user.email) == EmailAddress.normalize(email)
        else { return }
        _ = try await env.backend.admin.setVerified(id, false)
        await env.audit.record(
            .adminUserUnverified, subject: id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(user.email)], via: via))
    }

    /// A reset link token for the account to mail itself, spent by `MailedCodeChecks.completeReset`;
    /// `.rateLimited` when the address's reset mails are spent, `.userNotFound` for no account or a
    /// disabled one.
    public func passwordResetToken(for id: UserID, request: Request) async throws -> String {
        let user = try await env.backend.admin.user(id)
        let refusal = await env.budgets.take(.resetMailsTo(user.email))
        await env.audit.record(
            .passwordResetRequested, subject: id.rawValue, request: request,
            data: AuditTrail.data(
                ["email": .string(user.email), "delivery": "app", "throttled": .bool(refusal != nil)], via: via))
        if let refusal { throw AuthError.rateLimited(retryAfter: refusal.retryAfter) }
        guard let token = try await secrets().passwordResetToken(for: id) else { throw AuthError.userNotFound }
        return token
    }

    /// Sets the account's password and/or address (the backend's rules: password policy, a taken
    /// address); a change ends every session of the account and is audited as the person's own
    /// (`password.changed`, `email_change.confirmed`).
    public func update(_ id: UserID, email: String?, password: String?, request: Request) async throws -> User {
        let updated = try await env.backend.admin.updateUser(id, UserUpdate(email: email, password: password))
        if email != nil || password != nil {
            try await env.database.revokeSessions(userID: id, at: env.clock())
        }
        if password != nil {
            await env.audit.record(
                .passwordChanged, actor: id.rawValue, subject: id.rawValue, request: request, data: AuditTrail.data([:], via: via)
            )
        }
        if let email {
            await env.audit.record(
                .emailChangeConfirmed, actor: id.rawValue, subject: id.rawValue, request: request,
                data: AuditTrail.data(["email": .string(email)], via: via))
        }
        return updated
    }

    /// Deletes the account as the app's backend removes its user — the deletion staff and the owner
    /// make — audited as `account.deleted` by this way in; false when there was no such account.
    public func delete(_ id: UserID, request: Request) async throws -> Bool {
        let user: User
        do {
            user = try await env.backend.admin.user(id)
        } catch AuthError.userNotFound {
            return false
        }
        try await UserAdministration.remove(user, api: env.backend, env: env)
        await env.audit.record(
            .accountDeleted, actor: nil, subject: id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(user.email)], via: via))
        return true
    }

    /// Merges `patch` into the account's profile (`null` removes a key; the backend's profile
    /// rules apply), audited as `profile.updated` with the keys.
    public func updateProfile(_ id: UserID, _ patch: [String: JSONValue], request: Request) async throws -> User {
        let updated = try await env.backend.admin.updateUser(id, UserUpdate(profilePatch: patch))
        await env.audit.record(
            .profileUpdated, actor: id.rawValue, subject: id.rawValue, request: request,
            data: AuditTrail.data(["keys": .array(patch.keys.sorted().map(JSONValue.string))], via: via))
        return updated
    }

    /// A sign-in code and link for the app to mail together (one mail: the address's sign-in-mail
    /// budgets are taken once), spent through `EmailCodeSignIn` and `MagicLinkSignIn`. Under
    /// `policy`, spending either may create the account, and the cool-down between mails may not
    /// hold (`signInMailsCoolDown`). `.rateLimited` when the address's budgets are spent.
    public func signInSecrets(email: String, policy: WayInPolicy, request: Request) async throws
        -> SignInSecrets
    {
        let refusal =
            policy.signInMailsCoolDown
            ? await env.budgets.take(.signInMailsTo(email, .code), .signInMailsPerHourTo(email))
            : await env.budgets.take(.signInMailsPerHourTo(email))
        if let refusal { throw AuthError.rateLimited(retryAfter: refusal.retryAfter) }
        let issued = try await secrets().signInSecrets(email: email, allowSignUp: policy.passwordlessCreatesAccounts)
        await env.audit.record(
            .signInCodeRequested, request: request,
            data: AuditTrail.data(["email": .string(email), "method": "email_code", "delivery": "app"], via: via))
        return issued
    }

    /// The account a sign-in on the app's behalf opened `session` for, the session itself closed:
    /// the app's backend opens its own next (`AppSessions.openForAppBackend`).
    public func handOver(_ session: AuthSession) async -> User {
        try? await env.pageBackend.signOut(session)
        return session.user
    }

    func secrets() throws -> any AppDeliveredSecrets {
        guard let secrets = env.backend as? any AppDeliveredSecrets else { throw AuthError.notSupported(.userAdministration) }
        return secrets
    }
}
