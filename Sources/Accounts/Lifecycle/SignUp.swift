import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// A new account, whichever way in asks for it — the sign-up page, InsForge's `POST /api/auth/users`,
/// PocketBase's guest `records` create: the source's sign-up budget (`Budget.signUps`, every attempt
/// counted, whatever its outcome; the address's own under `WayInPolicy.budgetsPerAccount`), the seam call, the audit trail (`user.signed_up`, and
/// `verification.sent` when the account must verify its address), and the start of the address's
/// verification cool-down (the sign-up's own mail is its first verification mail).
public struct SignUp: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    public let via: String?
    /// Whether the way in lets the new account hold a session before it verifies its address.
    public let policy: WayInPolicy

    public init(env: Accounts, via: String?, policy: WayInPolicy = .serverDefaults) {
        (self.env, self.via, self.policy) = (env, via, policy)
    }

    /// The backend's outcome; throws `.rateLimited` when the source is over its budget and passes
    /// the backend's refusals on. `backend` is the seam as the front-end opens sessions with it.
    public func attempt(_ signUp: SignUpRequest, backend: any AuthAPI, request: Request) async throws -> SignUpOutcome {
        try await accounted(email: signUp.email, method: nil, request: request) {
            try await policy.applied(to: backend).signUp(signUp)
        }
    }

    /// A passkey's account, with no password, under the id the passkey's user handle names; the
    /// same budget, audit and verification rules as a password sign-up, its session (when the
    /// address need not be verified first) opened for a browser.
    func attemptWithoutPassword(id: UserID, email: String, name: String?, request: Request) async throws -> SignUpOutcome {
        try await accounted(email: email, method: "passkey", request: request) {
            try await policy.applied(to: env.pageBackend).signUpWithoutPassword(id: id, email: email, name: name)
        }
    }

    /// `create` under the source's sign-up budget, audited, the verification cool-down started.
    private func accounted(
        email: String, method: String?, request: Request, _ create: () async throws -> SignUpOutcome
    ) async throws -> SignUpOutcome {
        if let refusal = await env.budgets.take(.signUps(ip: policy.source(of: request, account: email))) {
            await env.audit.record(
                .signUpRefused, request: request,
                data: AuditTrail.data(["email": .string(email), "reason": "rate_limited"], via: via))
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        let outcome = try await create()
        let user = outcome.user
        var data: [String: JSONValue] = ["email": .string(user.email)]
        if let method { data["method"] = .string(method) }
        await env.audit.record(
            .userSignedUp, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: AuditTrail.data(data, via: via))
        if outcome.requireEmailVerification {
            await env.budgets.take(.verificationMailsTo(user.email))
            await env.audit.record(
                .verificationSent, subject: user.id.rawValue, request: request,
                data: AuditTrail.data(["mode": .string(env.verificationMode.rawValue)], via: via))
        }
        return outcome
    }

    /// A browser's sign-up: the new account signed in with its password when the backend opened no
    /// session (PocketBase's create answers with the record alone) and it need not verify first.
    public func attemptSigningIn(_ signUp: SignUpRequest, request: Request) async throws -> SignUpOutcome {
        var outcome = try await attempt(signUp, backend: env.pageBackend, request: request)
        if outcome.session == nil, !outcome.requireEmailVerification {
            outcome.session = try await policy.applied(to: env.pageBackend).signIn(email: signUp.email, password: signUp.password)
        }
        return outcome
    }

    /// The same, the new account's session opened for `client` (an app's, or a browser's).
    public func attempt(_ signUp: SignUpRequest, for client: SessionClient, request: Request) async throws -> SignUpOutcome {
        try await attempt(signUp, backend: env.backend.opening(for: client), request: request)
    }

    /// A record made without a session to keep (PocketBase's guest `records` create, which answers
    /// with the record alone): signed up as an app, the profile fields beyond the name set, and the
    /// new session, if any, signed out.
    public func attemptWithoutSession(
        _ signUp: SignUpRequest, profile extra: [String: JSONValue], for client: SessionClient, request: Request
    ) async throws -> User {
        let outcome = try await attempt(signUp, for: client, request: request)
        var created = outcome.user
        if !extra.isEmpty { created = try await env.backend.admin.updateUser(created.id, UserUpdate(profilePatch: extra)) }
        if let session = outcome.session { try await env.backend.signOut(session) }
        return created
    }

    /// A sign-up for an address that has an account, while addresses are verified: the front-end
    /// answers as for a new address (the backend mailed the owner about the try), so the address's
    /// verification cool-down starts as a new account's would; recorded as refused.
    public func refusedTakenAddress(_ email: String, request: Request) async {
        await env.budgets.take(.verificationMailsTo(email))
        await env.audit.record(
            .signUpRefused, request: request,
            data: AuditTrail.data(["email": .string(email), "reason": "email_exists"], via: via))
    }
}
