import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// Accounts whose only way in is an authenticator app (Descope's `totp/signup`, then `totp/verify
/// {loginId, code}` with no sign-in pending). Sign-up makes the account without a password through
/// the sign-up owner (budget, audit, verification rules) and hands back its pending key; a code
/// signs it in as one of the source's second-step tries, audited as one. An account with another
/// way in (a password, a passkey, a provider) is refused like a wrong code: its code stays a second
/// step (`SecondStepSignIn`).
public struct AuthenticatorAppSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("descope-api").
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// A new account at `email` (named in `profile`, with any other fields there) and its
    /// authenticator key, waiting for the first code. Under `policy` the account may hold a session
    /// at once (`.emailNotVerified` otherwise); the session the key was asked with ends here: the
    /// first code signs in.
    public func signUp(
        email: String, profile: [String: JSONValue], policy: WayInPolicy, request: Request
    ) async throws -> TOTPEnrollment {
        guard env.backend is any AuthenticatorOnlyAccounts else { throw AuthError.notSupported(.totp) }
        let outcome = try await SignUp(env: env, via: via, policy: policy).attemptWithoutPassword(
            id: UserID(SecureRandom.userID()), email: email, name: profile["name"]?.stringValue,
            profile: profile.filter { $0.key != "name" }, method: "totp", request: request)
        guard let session = outcome.session else { throw AuthError.emailNotVerified(email: email) }
        let enrollment = try await env.backend.beginTOTPEnrollment(session: session)
        try await env.backend.signOut(session)
        return enrollment
    }

    /// Signs the account at `email` in with its authenticator's `code`; refusals as
    /// `SecondStepSignIn.attempt`'s (never `.wrongMethod`).
    public func signIn(email: String, code: String, request: Request) async throws -> SignInResult {
        guard let backend = env.backend as? any AuthenticatorOnlyAccounts else { throw AuthError.notSupported(.totp) }
        if let refusal = await env.budgets.take(.secondSteps(ip: request.remoteAddress)) {
            await failed("rate_limited", email: email, request: request)
            return .refused(.throttled(retryAfter: refusal.retryAfter))
        }
        let session: AuthSession
        do {
            session = try await backend.signIn(email: email, authenticatorCode: code)
        } catch AuthError.invalidCode, AuthError.invalidCredentials {
            await failed("invalid_code", email: email, request: request)
            return .refused(.wrongCode)
        } catch AuthError.codeExpired {
            await failed("expired", email: email, request: request)
            return .refused(.expired)
        }
        let user = session.user.id.rawValue
        await env.audit.record(
            .signInCompleted, actor: user, subject: user, request: request,
            data: AuditTrail.data(["method": "totp"], via: via))
        return .signedIn(session)
    }

    private func failed(_ reason: String, email: String, request: Request) async {
        await env.audit.record(
            .signInFailed, request: request,
            data: AuditTrail.data(["email": .string(email), "method": "totp", "reason": .string(reason)], via: via))
    }
}
