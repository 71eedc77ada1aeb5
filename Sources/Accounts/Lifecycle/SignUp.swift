import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// A new account, whichever way in asks for it — the sign-up page, InsForge's `POST /api/auth/users`,
/// PocketBase's guest `records` create: the source's sign-up budget (`Budget.signUps`, every attempt
/// counted, whatever its outcome; the address's own under `WayInPolicy.budgetsPerAccount`), the seam
/// call, the audit trail (`user.signed_up`, saying `signedIn` when the new account keeps the session
/// it was given, and `verification.sent` when a verification mail went out), and the sign-up's own
/// verification mail as the way in's vendor sends it (`WayInPolicy.signUpMail`): on the pages it is
/// the address's first verification mail and starts its cool-down.
public struct SignUp: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?
    /// Whether the way in lets the new account hold a session before it verifies its address.
    let policy: WayInPolicy

    public init(env: Accounts, via: String?, policy: WayInPolicy = .serverDefaults) {
        (self.env, self.via, self.policy) = (env, via, policy)
    }

    /// The backend's outcome; throws `.rateLimited` when the source is over its budget and passes
    /// the backend's refusals on. `backend` is the seam as the front-end opens sessions with it.
    func attempt(_ signUp: SignUpRequest, backend: any AuthAPI, request: Request) async throws -> SignUpOutcome {
        try await attempt(signUp, backend: backend, keepsSession: true, request: request)
    }

    /// The same; `keepsSession` false when the session the backend opened is signed out at once.
    private func attempt(
        _ signUp: SignUpRequest, backend: any AuthAPI, keepsSession: Bool, request: Request
    ) async throws -> SignUpOutcome {
        var signUp = signUp
        signUp.appAsksForVerificationMail = policy.signUpMail == .notSent
        return try await accounted(email: signUp.email, method: nil, keepsSession: keepsSession, request: request) {
            [signUp] in
            try await policy.applied(to: backend).signUp(signUp)
        }
    }

    /// A passkey's (or, `method` "totp", an authenticator app's) account, with no password, under
    /// the id the passkey's user handle names; the same budget, audit and verification rules as a
    /// password sign-up, its session (when the address need not be verified first) opened for a browser.
    /// `profile`: fields beyond the name the new account gets (Descope's `user` name parts).
    func attemptWithoutPassword(
        id: UserID, email: String, name: String?, profile extra: [String: JSONValue] = [:], method: String = "passkey",
        request: Request
    ) async throws -> SignUpOutcome {
        // An authenticator app's account signs its session out once the key is made (the first code signs in).
        let outcome = try await accounted(email: email, method: method, keepsSession: method != "totp", request: request) {
            try await policy.applied(to: env.pageBackend).signUpWithoutPassword(id: id, email: email, name: name)
        }
        return try await giving(extra, to: outcome)
    }

    /// `create` under the source's sign-up budget, audited, the verification cool-down started
    /// where the policy says the sign-up's mail starts it.
    private func accounted(
        email: String, method: String?, keepsSession: Bool, request: Request, _ create: () async throws -> SignUpOutcome
    ) async throws -> SignUpOutcome {
        try await takeBudget(from: policy.source(of: request, account: email), ["email": .string(email)], request: request)
        let outcome = try await create()
        let user = outcome.user
        var data: [String: JSONValue] = ["email": .string(user.email)]
        if let method { data["method"] = .string(method) }
        if keepsSession, outcome.session != nil { data["signedIn"] = .bool(true) }
        await env.audit.record(
            .userSignedUp, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(data, via: via))
        await recordVerificationMail(of: outcome, request: request)
        return outcome
    }

    /// Takes one of `source`'s sign-ups; `.rateLimited` when they are spent, audited as a refused
    /// sign-up with `data`. Every way to a new account (a guest's too) spends this budget here.
    func takeBudget(from source: String, _ data: [String: JSONValue], request: Request) async throws {
        guard let refusal = await env.budgets.take(.signUps(ip: source)) else { return }
        await env.audit.record(
            .signUpRefused, request: request,
            data: AuditTrail.data(data.merging(["reason": "rate_limited"]) { _, reason in reason }, via: via))
        throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
    }

    /// The sign-up's own verification mail as the way in's vendor sends it
    /// (`WayInPolicy.signUpMail`): audited, and the address's cool-down started where it starts one.
    func recordVerificationMail(of outcome: SignUpOutcome, request: Request) async {
        guard outcome.requireEmailVerification, policy.signUpMail != .notSent else { return }
        let user = outcome.user
        if policy.signUpMail == .startsCooldown { await env.budgets.take(.verificationMailsTo(user.email)) }
        await env.audit.record(
            .verificationSent, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(["mode": .string(env.verificationMode.rawValue)], via: via))
    }

    /// A browser's sign-up: the new account signed in with its password when the backend opened no
    /// session (PocketBase's create answers with the record alone) and it need not verify first.
    public func attemptSigningIn(_ signUp: SignUpRequest, request: Request) async throws -> SignUpOutcome {
        var outcome = try await attempt(signUp, backend: env.pageBackend, request: request)
        if outcome.session == nil, !outcome.requireEmailVerification {
            let signedIn = try await policy.applied(to: env.pageBackend).signIn(email: signUp.email, password: signUp.password)
            outcome.session = await env.audit.completed(signedIn, ["method": "password"], via: via, request: request).session
        }
        return outcome
    }

    /// The same, the new account's session opened for `client` (an app's, or a browser's).
    /// `profile`: fields beyond the name the new account gets (Descope's `user` name parts).
    public func attempt(
        _ signUp: SignUpRequest, profile extra: [String: JSONValue] = [:], for client: SessionClient, request: Request
    ) async throws -> SignUpOutcome {
        try await attempt(signUp, profile: extra, for: client, keepsSession: true, request: request)
    }

    private func attempt(
        _ signUp: SignUpRequest, profile extra: [String: JSONValue], for client: SessionClient, keepsSession: Bool,
        request: Request
    ) async throws -> SignUpOutcome {
        let backend = env.backend.opening(for: client)
        return try await giving(
            extra, to: try await attempt(signUp, backend: backend, keepsSession: keepsSession, request: request))
    }

    /// The new account of `outcome` with the profile fields `extra` set (its session's user too).
    private func giving(_ extra: [String: JSONValue], to outcome: SignUpOutcome) async throws -> SignUpOutcome {
        guard !extra.isEmpty else { return outcome }
        var outcome = outcome
        outcome.user = try await env.backend.admin.updateUser(outcome.user.id, UserUpdate(profilePatch: extra))
        outcome.session?.user = outcome.user
        return outcome
    }

    /// A record made without a session to keep (PocketBase's guest `records` create, which answers
    /// with the record alone): signed up as an app, the profile fields beyond the name set, and the
    /// new session, if any, signed out.
    public func attemptWithoutSession(
        _ signUp: SignUpRequest, profile extra: [String: JSONValue], for client: SessionClient, request: Request
    ) async throws -> User {
        let outcome = try await attempt(signUp, profile: extra, for: client, keepsSession: false, request: request)
        if let session = outcome.session { try await env.backend.signOut(session) }
        return outcome.user
    }

    /// A sign-up for an address that has an account, while addresses are verified: the front-end
    /// answers as for a new address (the backend mailed the owner about the try), so the address's
    /// verification cool-down starts where a new account's would (`WayInPolicy.signUpMail`), and
    /// the next request for a mail reads alike for both; recorded as refused.
    public func refusedTakenAddress(_ email: String, request: Request) async {
        if policy.signUpMail == .startsCooldown { await env.budgets.take(.verificationMailsTo(email)) }
        await env.audit.record(
            .signUpRefused, request: request,
            data: AuditTrail.data(["email": .string(email), "reason": "email_exists"], via: via))
    }
}
