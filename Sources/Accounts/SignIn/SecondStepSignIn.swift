import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// One try at the second sign-in step (the authenticator, a recovery code, or PocketBase's mailed
/// code) with Gatehouse's rules around the seam's `completeMFA`: the per-source limit
/// (`Budget.secondSteps`, one budget for the `/auth/mfa` page and the PocketBase API) and the
/// audit trail (`mfa.completed` and `sign_in.completed`, or `mfa.failed` with its reason, against
/// the account whose step it is). The
/// backend keeps the per-account limits (the challenge's tries, the account's recent failures).
public struct SecondStepSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("pocketbase-api"); nil for the hosted pages, whose
    /// events have never carried one.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// Tries `factor` on the pending sign-in `challengeID`: signed in, or refused — `.throttled`
    /// (the source spent its tries; nothing reached the backend), `.wrongCode` (a wrong, reused or
    /// refused code; the challenge lives on while it has tries left), `.expired` (the challenge is
    /// unknown, expired, spent or out of tries: start again), `.wrongMethod` (a mailed code for an
    /// account whose second step is its authenticator app, or whoever reads the mailbox would pass
    /// both steps). Never `.secondStep`. Other backend failures are thrown on.
    public func attempt(challengeID: String, factor: SecondFactor, request: Request) async throws -> SignInResult {
        let method = Self.auditName(of: factor)
        if let refusal = await env.budgets.take(.secondSteps(ip: request.remoteAddress)) {
            await failed(method, reason: "rate_limited", challengeID: challengeID, request: request)
            return .refused(.throttled(retryAfter: refusal.retryAfter))
        }
        let session: AuthSession
        do {
            session = try await env.pageBackend.completeMFA(challengeID: challengeID, with: factor)
        } catch AuthError.invalidCode, AuthError.invalidCredentials {
            await failed(method, reason: "invalid_code", challengeID: challengeID, request: request)
            return .refused(.wrongCode)
        } catch AuthError.codeExpired {
            await failed(method, reason: "expired", challengeID: challengeID, request: request)
            return .refused(.expired)
        } catch AuthError.notSupported(.emailOTP) {
            await failed(method, reason: "wrong_method", challengeID: challengeID, request: request)
            return .refused(.wrongMethod)
        }
        let user = session.user.id.rawValue
        await env.audit.record(
            .mfaCompleted, actor: user, subject: user, request: request,
            data: AuditTrail.data(["method": .string(method)], via: via))
        await env.audit.record(
            .signInCompleted, actor: user, subject: user, request: request,
            data: AuditTrail.data(["secondStep": .string(method)], via: via))
        return .signedIn(session)
    }

    /// Records a refused second step, against its account when the backend can name it.
    private func failed(_ method: String, reason: String, challengeID: String, request: Request) async {
        let owner = try? await (env.backend as? any SecondStepOwners)?.owner(ofSecondStep: challengeID)
        await env.audit.record(
            .mfaFailed, subject: owner?.rawValue, request: request,
            data: AuditTrail.data(["method": .string(method), "reason": .string(reason)], via: via))
    }

    /// The method as audit events name it.
    private static func auditName(of factor: SecondFactor) -> String {
        switch factor {
        case .totp: return "totp"
        case .recoveryCode: return "recovery_code"
        case .emailOTP: return "email_code"
        }
    }
}
