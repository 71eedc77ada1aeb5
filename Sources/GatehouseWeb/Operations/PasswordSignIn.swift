import AuthCore
import Foundation
import HTTPServer

/// One password sign-in attempt with Gatehouse's rules around the seam call: the per-source limit,
/// the (account, source) back-off and the per-account ceiling (`SignInThrottle`), and the audit
/// trail. A locked account still costs one password check and fails exactly like a wrong password.
struct PasswordSignIn: Sendable {
    let env: PageEnvironment
    /// Names the front-end in the audit data ("pages", "pocketbase-api").
    let via: String

    /// The backend's session; throws `.invalidCredentials` for a wrong password, an unknown address
    /// or a locked account alike, `.rateLimited` when the source is over its limit, and passes
    /// `.emailNotVerified` and `.mfaRequired` on.
    func attempt(email: String, password: String, request: Request) async throws -> AuthSession {
        let now = env.clock()
        if let wait = await env.limiter.take("sign-in:\(request.remoteAddress)", Throttle.signInPerIP, now: now) {
            await env.audit.record(
                .signInFailed, request: request, data: ["email": .string(email), "reason": "rate_limited", "via": .string(via)])
            throw AuthError.rateLimited(retryAfter: wait)
        }
        await env.audit.record(.signInStarted, request: request, data: ["email": .string(email), "via": .string(via)])
        let throttle = SignInThrottle(limiter: env.limiter, scope: "sign-in", email: email, ip: request.remoteAddress)
        let locked = await throttle.isLocked(now: now)
        let reason: String
        do {
            let session = try await env.pageBackend.signIn(email: email, password: password)
            if !locked {
                await throttle.succeeded()
                let user = session.user.id.rawValue
                await env.audit.record(
                    .signInCompleted, actor: user, subject: user, request: request, data: ["via": .string(via)])
                return session
            }
            reason = "locked"
        } catch AuthError.mfaRequired(let challenge) where !locked {
            await throttle.succeeded()
            throw AuthError.mfaRequired(challenge)
        } catch AuthError.emailNotVerified(let address) where !locked {
            await env.audit.record(
                .signInFailed, request: request,
                data: ["email": .string(email), "reason": "email_not_verified", "via": .string(via)])
            throw AuthError.emailNotVerified(email: address)
        } catch AuthError.invalidCredentials {
            reason = locked ? "locked" : "invalid_credentials"
        } catch AuthError.emailNotVerified, AuthError.mfaRequired {
            reason = "locked"
        }
        await throttle.failed(now: now, wasLocked: locked)
        await env.audit.record(
            .signInFailed, request: request, data: ["email": .string(email), "reason": .string(reason), "via": .string(via)])
        throw AuthError.invalidCredentials
    }
}
