import AuthCore
import HTTPServer

/// A person's authenticator app (TOTP) and recovery codes: its status, enrolment (a pending key,
/// then a first code, taking one of the source's code checks), turning it off and new recovery
/// codes (both after the password again, throttled per account and source like sign-in). Never
/// through an impersonation; every change audited as the person's own act.
public struct AuthenticatorApp: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    public func status(of signedIn: SignedIn) async throws -> TOTPStatus {
        try await env.backend.totpStatus(session: signedIn.backendSession)
    }

    /// The pending key to scan (the same one while it is fresh); never on an unproven account
    /// unless `policy` admits it (`AccountTrust`), nor its confirmation.
    public func beginEnrollment(_ signedIn: SignedIn, policy: WayInPolicy = .serverDefaults) async throws -> TOTPEnrollment {
        try refuseImpersonation(signedIn)
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy)
        return try await env.backend.beginTOTPEnrollment(session: signedIn.backendSession)
    }

    /// Turns the authenticator on with its first code; returns the recovery codes, shown once.
    /// Throws `.rateLimited` when the source has no code checks left, `.invalidCode`, `.codeExpired`.
    public func confirmEnrollment(
        code: String, _ signedIn: SignedIn, policy: WayInPolicy = .serverDefaults, request: Request
    ) async throws -> [String] {
        try refuseImpersonation(signedIn)
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user, policy: policy)
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let codes = try await env.backend.confirmTOTPEnrollment(code: code, session: signedIn.backendSession)
        await env.audit.recordOwnAct(.totpEnabled, of: signedIn, request: request)
        return codes
    }

    /// Turns the authenticator off after the password; nil when it went through.
    public func disable(password: String, _ signedIn: SignedIn, request: Request) async throws -> PasswordRefusal? {
        try refuseImpersonation(signedIn)
        let result = try await reauthenticated(password, signedIn, request) {
            try await env.backend.disableTOTP(password: password, session: signedIn.backendSession)
        }
        guard case .success = result else { return result.refusal }
        await env.audit.recordOwnAct(.totpDisabled, of: signedIn, request: request)
        return nil
    }

    /// Turns the authenticator off on the session's own word, where `policy` takes it as the proof
    /// (`authenticatorRemovedBySession`), and only in a recent sign-in (`FreshSignInRequired`
    /// otherwise); `.notSupported(.totp)` under a policy that asks for the password.
    public func remove(_ signedIn: SignedIn, policy: WayInPolicy, via: String?, request: Request) async throws {
        try refuseImpersonation(signedIn)
        guard policy.authenticatorRemovedBySession else { throw AuthError.notSupported(.totp) }
        if RecentSignIn.isStale(signedIn, now: env.clock()) { throw FreshSignInRequired(.removeAuthenticatorApp) }
        try await env.backend.admin.resetTOTP(of: signedIn.user.id)
        await env.audit.recordOwnAct(.totpDisabled, of: signedIn, request: request, data: AuditTrail.data([:], via: via))
    }

    /// Ten new recovery codes after the password (the old ones die).
    public func regenerateRecoveryCodes(password: String, _ signedIn: SignedIn, request: Request) async throws
        -> Result<[String], PasswordRefusal>
    {
        try refuseImpersonation(signedIn)
        let result = try await reauthenticated(password, signedIn, request) {
            try await env.backend.regenerateRecoveryCodes(password: password, session: signedIn.backendSession)
        }
        if case .success = result {
            await env.audit.recordOwnAct(.totpRecoveryCodesRegenerated, of: signedIn, request: request)
        }
        return result
    }

    private func reauthenticated<T: Sendable>(
        _ password: String, _ signedIn: SignedIn, _ request: Request, _ change: () async throws -> T
    ) async throws -> Result<T, PasswordRefusal> {
        try await env.budgets.withPasswordTry(
            .reauthentication, email: signedIn.user.email, password: password, ip: request.remoteAddress, change)
    }

    private func refuseImpersonation(_ signedIn: SignedIn) throws {
        if signedIn.session.impersonator != nil { throw ImpersonationRefusal.credentialChange }
    }
}
