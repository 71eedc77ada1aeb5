import AuthCore
import Foundation
import HTTPServer

/// A new account, whichever way in asks for it — the sign-up page, InsForge's `POST /api/auth/users`,
/// PocketBase's guest `records` create: the source's sign-up budget (`Budget.signUps`, every attempt
/// counted, whatever its outcome), the seam call, the audit trail, and the start of the address's
/// verification cool-down (the sign-up's own mail is its first verification mail).
struct SignUp: Sendable {
    let env: PageEnvironment
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?

    /// The backend's outcome; throws `.rateLimited` when the source is over its budget and passes
    /// the backend's refusals on. `backend` is the seam as the front-end opens sessions with it.
    func attempt(_ signUp: SignUpRequest, backend: any AuthAPI, request: Request) async throws -> SignUpOutcome {
        if let refusal = await env.budgets.take(.signUps(ip: request.remoteAddress)) {
            await env.audit.record(
                .signUpRefused, request: request,
                data: AuditTrail.data(["email": .string(signUp.email), "reason": "rate_limited"], via: via))
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let outcome = try await backend.signUp(signUp)
        let user = outcome.user
        await env.audit.record(
            .userSignedUp, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(user.email)], via: via))
        if outcome.requireEmailVerification { await env.budgets.take(.verificationMailsTo(user.email)) }
        return outcome
    }
}
