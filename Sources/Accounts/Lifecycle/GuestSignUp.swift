import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Guest accounts, the one owner of making one and of upgrading one (the Rownd plugin's `guest`
/// route and the sign-up a guest's session makes later). A guest has no address of its own and
/// no password: only the session it was made with. Making one takes one of the source's sign-ups
/// (`Budget.signUps`, by the caller's address: a guest names no account) and is audited as
/// `user.signed_up` (`method: guest`). Upgrading one is a sign-up in place — the same budget, checks
/// and mail as `SignUp`, the guest's id, profile and meta kept — audited as `user.guest_upgraded`;
/// the guest's session that asked ends (the sign-up's session replaces it). An address that has an
/// account is refused as a sign-up is: a guest never joins, nor takes, an existing account. A
/// mailed code or link spent with a guest's session (`EmailCodeSignIn`, `MagicLinkSignIn`, under
/// their budgets) upgrades it the same way when the address has no account, and otherwise signs in
/// to that account alone.
public struct GuestSignUp: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data.
    let via: String
    let policy: WayInPolicy

    public init(env: Accounts, via: String, policy: WayInPolicy) { (self.env, self.via, self.policy) = (env, via, policy) }

    /// A new guest account, its session opened for `client`. `.rateLimited` when the source's
    /// sign-ups are spent; `.notSupported` on a backend without guests.
    public func attempt(for client: SessionClient, request: Request) async throws -> AuthSession {
        try await signUp.takeBudget(from: request.remoteAddress, ["method": "guest"], request: request)
        let outcome = try await backend(for: client).signUpGuest()
        guard let session = outcome.session else { throw AuthError.invalidCredentials }
        await env.audit.record(
            .userSignedUp, actor: outcome.user.id.rawValue, subject: outcome.user.id.rawValue, request: request,
            data: AuditTrail.data(["method": "guest", "signedIn": .bool(true)], via: via))
        return session
    }

    /// Whether account `id` is a guest (never, on a backend without guests).
    public func isGuest(_ id: UserID) async throws -> Bool {
        guard let guests = try? env.backend.guestSignUps() else { return false }
        return try await guests.isGuest(id)
    }

    /// The sign-up `signUp`, made with guest `guest`'s session: the guest account gets its address
    /// and password. Refusals as `SignUp`'s (`.rateLimited`, `.validation`, `.emailExists`); nothing
    /// changes on any of them.
    public func upgrade(
        _ guest: SignedIn, to signUp: SignUpRequest, for client: SessionClient, request: Request
    ) async throws -> SignUpOutcome {
        let email = signUp.email
        try await self.signUp.takeBudget(
            from: policy.source(of: request, account: email), ["email": .string(email)], request: request)
        var asked = signUp
        asked.appAsksForVerificationMail = policy.signUpMail == .notSent
        let outcome = try await backend(for: client).upgradeGuest(guest.user.id, to: asked)
        try await env.sessions.bindings.revoke(guest)
        await env.audit.record(
            .guestUpgraded, actor: guest.user.id.rawValue, subject: guest.user.id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(outcome.user.email), "method": "password"], via: via))
        await self.signUp.recordVerificationMail(of: outcome, request: request)
        return outcome
    }

    /// Audits `result` as `guest`'s upgrade when it signed the guest's own account in (a code or
    /// link spent with its session, for an address that had no account).
    static func recordUpgrade(
        of guest: SignedIn, _ result: SignInResult, method: String, env: Accounts, via: String?, request: Request
    ) async {
        guard case .signedIn(let session) = result, session.user.id == guest.user.id else { return }
        await env.audit.record(
            .guestUpgraded, actor: guest.user.id.rawValue, subject: guest.user.id.rawValue, request: request,
            data: AuditTrail.data(["email": .string(session.user.email), "method": .string(method)], via: via))
    }

    /// The sign-up owner whose budget, refusal audit and verification-mail rule a guest's sign-up
    /// and upgrade follow.
    private var signUp: SignUp { SignUp(env: env, via: via, policy: policy) }

    private func backend(for client: SessionClient) throws -> any GuestSignUps {
        try policy.applied(to: env.backend.opening(for: client)).guestSignUps()
    }
}
