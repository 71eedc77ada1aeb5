import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// Sign-in codes and links a test suite asks for with a management key (Descope's
/// `tests/generate/…`, `user/signin/embeddedlink`) instead of reading them from mail: the very
/// secrets a mail would carry — minted by the backend under the mail's rules (lifetime, tries,
/// single use, older ones dying), spent by the ordinary owners (`SignInCodes`, `MagicLinkSignIn`,
/// `EnchantedLinkSignIn`), and taking the same budgets as the mail (`MailRequests`) — but
/// nothing is mailed. A management sign-in opens a session directly. Each is audited with the key.
public struct TestSignInSecrets: Sendable {
    let env: Accounts
    /// Names the way in in the audit data ("descope-management").
    let via: String
    /// The key the suite acts with.
    public let key: ManagementKey

    public init(env: Accounts, via: String, key: ManagementKey) { (self.env, self.via, self.key) = (env, via, key) }

    /// A sign-in code for the test user at `email`, which `SignInCodes.check` (Descope's
    /// `otp/verify/email`) takes; `.userNotFound` unless `email` is a test user's (`TestUsers`).
    public func code(email: String, request: Request) async throws -> String {
        try env.requireSignIn(by: .emailCode)
        try await requireTestUser(email)
        try await takeBudget(.code, email: email, request: request)
        let issued = try await secrets().unmailedSignInCode(email: email, allowSignUp: false)
        try await SignInCodes(env: env, via: via).remember(otpID: issued.otpID, for: email)
        await record("email_code", email: email, request: request)
        return issued.code
    }

    /// A sign-in link's token for the test user at `email`, bound to no browser, which
    /// `MagicLinkSignIn` opens (Descope's `magiclink/verify`); `.userNotFound` unless `email` is a
    /// test user's.
    public func magicLink(email: String, request: Request) async throws -> String {
        try await requireTestUser(email)
        return try await link(email: email, allowSignUp: false, signUpProfile: nil, method: "magic_link", request: request)
    }

    /// An embedded link's token for any account at `email` (Descope's `user/signin/embeddedlink`),
    /// or — `allowSignUp` — for an address that has none yet, the account made when it is spent
    /// getting `signUpProfile` (`user/signup/embeddedlink`); opened as a magic link.
    public func embeddedLink(
        email: String, allowSignUp: Bool, signUpProfile: Profile?, request: Request
    ) async throws -> String {
        if !allowSignUp, try await env.backend.admin.user(email: email) == nil { throw AuthError.userNotFound }
        return try await link(
            email: email, allowSignUp: allowSignUp, signUpProfile: signUpProfile, method: "embedded_link", request: request)
    }

    private func link(
        email: String, allowSignUp: Bool, signUpProfile: Profile?, method: String, request: Request
    ) async throws -> String {
        try env.requireSignIn(by: .magicLink)
        try await takeBudget(.link, email: email, request: request)
        let token = try await secrets().unmailedSignInLink(
            email: email, allowSignUp: allowSignUp, browserBinding: nil, signUpProfile: signUpProfile)
        await record(method, email: email, request: request)
        return token
    }

    /// An enchanted link for the test user at `email`: the pending ref the app polls with, and the link's token,
    /// which `EnchantedLinkSignIn.approve` takes.
    public func enchantedLink(email: String, request: Request) async throws -> (pendingRef: String, token: String) {
        try env.requireSignIn(by: .magicLink)
        try await requireTestUser(email)
        try await takeBudget(.link, email: email, request: request)
        let pendingRef = SecureRandom.token()
        let token = try await secrets().unmailedSignInLink(
            email: email, allowSignUp: false,
            browserBinding: EnchantedLinkSignIn(env: env, via: via).binding(of: pendingRef), signUpProfile: nil)
        await record("enchanted_link", email: email, request: request)
        return (pendingRef, token)
    }

    /// A session for the account at `email`, as if it had signed in (no credential, no second
    /// step: the key vouches); `.userNotFound` for no account, `.invalidCredentials` for a
    /// disabled one.
    public func signIn(email: String, request: Request) async throws -> AuthSession {
        try await TestSignIn(env: env, caller: .key(key), via: via).session(email: email, request: request)
    }

    /// Makes an account at `email` (no password anyone knows; `name` and `verified` as the suite
    /// says) and signs it in (`signIn`); with `orSignIn`, an address with an account signs that
    /// one in instead, else `.emailExists`. The session, and whether the account is new.
    public func signUp(
        email: String, name: String?, verified: Bool, orSignIn: Bool, request: Request
    ) async throws -> (session: AuthSession, created: Bool) {
        if orSignIn, try await env.backend.admin.user(email: email) != nil {
            return (try await signIn(email: email, request: request), false)
        }
        let operations = TestUserOperations(
            api: env.backend, database: env.database, audit: env.audit, clock: env.clock, actor: nil, ip: request.remoteAddress)
        _ = try await operations.createOne(
            email: email, password: nil, name: name, verified: verified, tag: nil, via: via,
            auditData: ["managementKey": .string(key.id)])
        return (try await signIn(email: email, request: request), true)
    }

    private func requireTestUser(_ email: String) async throws {
        guard try await TestUsers(env: env, via: via, key: key).testUser(email: email) != nil else {
            throw AuthError.userNotFound
        }
    }

    private func takeBudget(_ kind: Budget.SignInMail, email: String, request: Request) async throws {
        if let refusal = await MailRequests(env: env, via: via).takeSignInMail(kind, email: email, request: request) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
    }

    private func record(_ method: String, email: String, request: Request) async {
        await env.audit.record(
            .testSecretIssued, request: request,
            data: [
                "email": .string(email), "method": .string(method), "via": .string(via), "managementKey": .string(key.id)
            ])
    }

    private func secrets() throws -> any UnmailedSignInSecrets {
        guard let secrets = env.backend as? any UnmailedSignInSecrets else { throw AuthError.notSupported(.magicLink) }
        return secrets
    }
}
