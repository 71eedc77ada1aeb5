import AuthCore
import Foundation
import HTTPServer

/// One password sign-in attempt, whichever way in — the sign-in page, the InsForge and PocketBase
/// APIs — with Gatehouse's rules around the seam call: the try is admitted before the password is
/// hashed (`Budgets.beginPasswordTry`: the source's tries, the (account, source) back-off and the
/// account's ceiling, checked and counted in one transaction), and the audit trail. A locked
/// account still costs one password check and fails exactly like a wrong password.
struct PasswordSignIn: Sendable {
    let env: PageEnvironment
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?

    /// The backend's session; throws `.invalidCredentials` for a wrong password, an unknown address
    /// or a locked account alike, `.rateLimited` when the source is over its tries, and passes
    /// `.emailNotVerified` and `.mfaRequired` on.
    func attempt(email: String, password: String, request: Request) async throws -> AuthSession {
        let attempt = await env.budgets.beginPasswordTry(.signIn, email: email, ip: request.remoteAddress)
        if case .throttled(let wait) = attempt.admission {
            await failed(email, reason: "rate_limited", request: request)
            throw AuthError.rateLimited(retryAfter: wait)
        }
        await env.audit.record(.signInStarted, request: request, data: AuditTrail.data(["email": .string(email)], via: via))
        let locked = attempt.admission == .locked
        let reason: String
        do {
            let session = try await env.pageBackend.signIn(email: email, password: password)
            if !locked {
                await env.budgets.settle(attempt, .right)
                let user = session.user.id.rawValue
                await env.audit.record(
                    .signInCompleted, actor: user, subject: user, request: request, data: AuditTrail.data([:], via: via))
                return session
            }
            reason = "locked"
        } catch AuthError.mfaRequired(let challenge) where !locked {
            await env.budgets.settle(attempt, .right)
            throw AuthError.mfaRequired(challenge)
        } catch AuthError.emailNotVerified(let address) where !locked {
            // The right password for an address still to verify: not a failure, not a sign-in.
            await env.budgets.settle(attempt, .none)
            await failed(email, reason: "email_not_verified", request: request)
            throw AuthError.emailNotVerified(email: address)
        } catch AuthError.invalidCredentials {
            reason = locked ? "locked" : "invalid_credentials"
        } catch AuthError.emailNotVerified, AuthError.mfaRequired {
            reason = "locked"
        } catch {
            await env.budgets.settle(attempt, .none)
            throw error
        }
        await failed(email, reason: reason, request: request)
        throw AuthError.invalidCredentials
    }

    private func failed(_ email: String, reason: String, request: Request) async {
        await env.audit.record(
            .signInFailed, request: request,
            data: AuditTrail.data(["email": .string(email), "reason": .string(reason)], via: via))
    }
}
