import AuthCore
import HTTPServer
import ServerSeam

/// What a signed-in person's authenticator code came to outside a sign-in.
public enum StepUpOutcome: Sendable, Equatable {
    case passed
    /// Wrong, already spent, or the account's wrong tries this hour are used up.
    case wrongCode
    /// The account has no authenticator app on.
    case noAuthenticator
    /// The source spent its second-step tries: nothing was checked.
    case throttled(retryAfter: Int)
}

extension AuthenticatorApp {
    /// Checks a current authenticator code for the signed-in account (a step-up, SuperTokens'
    /// `totp/verify` in a session owing nothing): one of the source's second-step tries
    /// (`Budget.secondSteps`), the backend's per-account rules (`AuthenticatorStepUps`), audited
    /// as the person's second step (`mfa.completed` or `mfa.failed`, `step: "session"`).
    public func stepUp(code: String, _ signedIn: SignedIn, via: String?, request: Request) async throws -> StepUpOutcome {
        guard let backend = env.backend as? any AuthenticatorStepUps else { throw AuthError.notSupported(.totp) }
        if let refusal = await env.budgets.take(.secondSteps(ip: request.remoteAddress)) {
            await stepUpFailed("rate_limited", signedIn, via: via, request: request)
            return .throttled(retryAfter: refusal.retryAfter)
        }
        do {
            guard try await backend.checkAuthenticatorCode(code, session: signedIn.backendSession) else {
                await stepUpFailed("invalid_code", signedIn, via: via, request: request)
                return .wrongCode
            }
        } catch AuthError.notSupported(.totp) {
            return .noAuthenticator
        }
        await env.audit.recordOwnAct(
            .mfaCompleted, of: signedIn, request: request,
            data: AuditTrail.data(["method": "totp", "step": "session"], via: via))
        return .passed
    }

    private func stepUpFailed(_ reason: String, _ signedIn: SignedIn, via: String?, request: Request) async {
        await env.audit.recordOwnAct(
            .mfaFailed, of: signedIn, request: request,
            data: AuditTrail.data(["method": "totp", "step": "session", "reason": .string(reason)], via: via))
    }
}
