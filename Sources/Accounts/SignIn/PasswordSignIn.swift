import AuthCore
import Foundation
import HTTPServer

/// One password sign-in attempt, whichever way in — the sign-in page, the InsForge and PocketBase
/// APIs — with Gatehouse's rules around the seam call: the try is admitted before the password is
/// hashed (`Budgets.beginPasswordTry`: the source's tries, the (account, source) back-off and the
/// account's ceiling, checked and counted in one transaction), and the audit trail. A locked
/// account never reaches the backend: it costs the dummy hash and is told to wait, as an unknown
/// address backing off is. Every refusal of a known account is recorded against that account.
public struct PasswordSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?
    /// Whether the way in admits accounts that have not verified their address.
    let policy: WayInPolicy

    public init(env: Accounts, via: String?, policy: WayInPolicy = .serverDefaults) {
        (self.env, self.via, self.policy) = (env, via, policy)
    }

    /// The backend's session, the second step it asks, or the refusal: `.invalidCredentials` for a
    /// wrong password or an unknown address alike, `.throttled` when the source is over its tries or
    /// the (address, source) pair is backing off, `.disabled` after a disabled account's right
    /// password, `.emailNotVerified` for the right password of an address still to verify.
    /// Throws `SignInMethodOff` when passwords are turned off, and the backend's other failures.
    public func attempt(email: String, password: String, request: Request) async throws -> SignInResult {
        try env.requireSignIn(by: .password)
        let attempt = await env.budgets.beginPasswordTry(
            .signIn, email: email, password: password, ip: policy.source(of: request, account: email))
        if case .throttled(let wait) = attempt.admission {
            await failed(email, reason: "rate_limited", request: request)
            return .refused(.throttled(retryAfter: wait))
        }
        await env.audit.record(.signInStarted, request: request, data: AuditTrail.data(["email": .string(email)], via: via))
        if case .locked(let wait) = attempt.admission {
            await failed(email, reason: "locked", request: request)
            return .refused(.throttled(retryAfter: wait))
        }
        do {
            let result = try await policy.applied(to: env.pageBackend).signIn(email: email, password: password)
            await env.budgets.settle(attempt, .right)
            return await env.audit.completed(result, [:], via: via, request: request)
        } catch AuthError.emailNotVerified(let address) {
            // The right password for an address still to verify: not a failure, not a sign-in.
            await env.budgets.settle(attempt, .none)
            await failed(email, reason: "email_not_verified", request: request)
            return .refused(.emailNotVerified(email: address))
        } catch AuthError.invalidCredentials {
            await failed(email, reason: "invalid_credentials", request: request)
            return .refused(.invalidCredentials)
        } catch is AccountDisabled {
            // The right password: the pair's back-off is left as it was, neither cleared nor grown.
            await env.budgets.settle(attempt, .none)
            await failed(email, reason: "disabled", request: request)
            return .refused(.disabled)
        } catch {
            await env.budgets.settle(attempt, .none)
            throw error
        }
    }

    /// Records a refused sign-in, against the address's account when there is one (staff find it
    /// on the user page and under the audit's User filter); an unknown address stays address-only.
    /// One indexed read for every refusal, known address or not, so its timing tells no one anything.
    private func failed(_ email: String, reason: String, request: Request) async {
        let account = try? await env.database.user(email: email)
        await env.audit.record(
            .signInFailed, subject: account?.id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(email), "reason": .string(reason)], via: via))
    }
}
