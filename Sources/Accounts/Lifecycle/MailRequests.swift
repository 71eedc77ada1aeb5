import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// Every mail a person asks for without signing in — verification, password reset, a sign-in code
/// or link — whichever way in asks: the source's mail budget and the address's own, taken together
/// (`Budget.mails`, and `verificationMailsTo`, `resetMailsTo`, `signInMailsTo`/`signInMailsPerHourTo`),
/// the seam call, and the audit trail. The address's budgets are taken for every well-formed address,
/// known or not, so a refusal says nothing about an account; each front-end decides how a held
/// request reads (the pages say "please wait", PocketBase answers as if sent, InsForge answers 429
/// as its own backend does). Every request answers no sooner than `answerFloor` after it began, so
/// an address that gets a mail is not measurably slower than one that does not.
public struct MailRequests: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// The floor under every answer.
    static let answerFloor: Duration = .milliseconds(150)

    /// What became of a request.
    public enum Outcome: Sendable {
        /// Handed to the backend, which mails known addresses only.
        case sent
        /// Nothing sent: this budget had no room.
        case held(Budgets.Refusal)
    }

    /// What became of a sign-in code request.
    public enum CodeOutcome: Sendable {
        /// Handed to the backend: the id to sign in with.
        case sent(otpID: String)
        case held(Budgets.Refusal)
    }

    /// A new verification mail (code or link, the backend's mode) for an unverified account;
    /// `withLink` when the caller confirms with a link's token (the PocketBase API), so a code
    /// comes with its link.
    public func verification(email: String, withLink: Bool = false, request: Request) async throws -> Outcome {
        try await padded {
            if let refusal = await env.budgets.take(.mails(ip: request.remoteAddress), .verificationMailsTo(email)) {
                return .held(refusal)
            }
            try await env.backend.resendVerificationEmail(email: email, withLink: withLink)
            await env.audit.record(
                .verificationRequested, request: request, data: AuditTrail.data(["email": .string(email)], via: via))
            return .sent
        }
    }

    /// A reset mail; held requests are audited too, marked `throttled`. With `appURL` (Descope's
    /// `redirectUrl`), the mail is a sign-in link to that address instead (existing accounts only):
    /// the app spends its `t` to sign in, then sets the new password with that session.
    public func passwordReset(email: String, appURL: String? = nil, request: Request) async throws -> Outcome {
        try await padded {
            let refusal = await env.budgets.take(.mails(ip: request.remoteAddress), .resetMailsTo(email))
            if refusal == nil {
                if let appURL {
                    try await linkMail(email: email, allowSignUp: false, opening: .app(appURL))
                } else {
                    try await env.backend.requestPasswordReset(email: email)
                }
            }
            await env.audit.record(
                .passwordResetRequested, request: request,
                data: AuditTrail.data(["email": .string(email), "throttled": .bool(refusal != nil)], via: via))
            return refusal.map(Outcome.held) ?? .sent
        }
    }

    /// A passwordless sign-in code; `allowSignUp` lets an address without an account get one, and
    /// `signUpProfile` is what such an account gets (where the backend keeps it: `CodeSignUpProfiles`).
    public func signInCode(
        email: String, allowSignUp: Bool, signUpProfile: Profile? = nil, request: Request
    ) async throws -> CodeOutcome {
        try env.requireSignIn(by: .emailCode)
        return try await padded {
            if let refusal = await takeSignInMail(.code, email: email, request: request) { return .held(refusal) }
            let otpID =
                if let signUpProfile, let backend = env.backend as? any CodeSignUpProfiles {
                    try await backend.requestEmailOTP(email: email, allowSignUp: allowSignUp, signUpProfile: signUpProfile)
                } else {
                    try await env.backend.requestEmailOTP(email: email, allowSignUp: allowSignUp)
                }
            await env.audit.record(
                .signInCodeRequested, request: request,
                data: AuditTrail.data(["email": .string(email), "method": "email_code"], via: via))
            return .sent(otpID: otpID)
        }
    }

    /// A magic link bound to the asking browser (`browserBinding`).
    /// `opening`: where the link opens instead of the magic-link page (an enchanted link's page,
    /// `EnchantedLinkSignIn`; an app's address), and `signUpProfile`, what an account the link
    /// creates gets, where the backend can (`EnchantedLinks`).
    public func magicLink(
        email: String, allowSignUp: Bool, browserBinding: String, opening link: LinkOpening? = nil,
        signUpProfile: Profile? = nil, request: Request
    ) async throws -> Outcome {
        try env.requireSignIn(by: .magicLink)
        return try await padded {
            if let refusal = await takeSignInMail(.link, email: email, request: request) { return .held(refusal) }
            // A backend without `EnchantedLinks` still mails the plain link, without the profile.
            if link == nil, signUpProfile == nil || !(env.backend is any EnchantedLinks) {
                try await env.backend.requestMagicLink(email: email, allowSignUp: allowSignUp, browserBinding: browserBinding)
            } else {
                try await linkMail(
                    email: email, allowSignUp: allowSignUp, browserBinding: browserBinding, opening: link ?? .magicLinkPage,
                    signUpProfile: signUpProfile)
            }
            await env.audit.record(
                .signInLinkRequested, request: request,
                data: AuditTrail.data(["email": .string(email), "method": "magic_link"], via: via))
            return .sent
        }
    }

    /// A sign-in link opening `link`; bound to no browser unless `browserBinding` names one (a
    /// nonce nobody holds: Gatehouse's own page asks the person to confirm first).
    private func linkMail(
        email: String, allowSignUp: Bool, browserBinding: String? = nil, opening link: LinkOpening,
        signUpProfile: Profile? = nil
    ) async throws {
        guard let links = env.backend as? any EnchantedLinks else { throw AuthError.notSupported(.magicLink) }
        try await links.requestMagicLink(
            email: email, allowSignUp: allowSignUp,
            browserBinding: browserBinding ?? MagicLinkSignIn(env: env).binding(of: SecureRandom.token()), opening: link,
            signUpProfile: signUpProfile)
    }

    /// The budgets a sign-in mail of `kind` takes: the source's and the address's.
    func takeSignInMail(_ kind: Budget.SignInMail, email: String, request: Request) async -> Budgets.Refusal? {
        await env.budgets.take(
            .mails(ip: request.remoteAddress), .signInMailsTo(email, kind), .signInMailsPerHourTo(email))
    }

    private func padded<T: Sendable>(_ answer: () async throws -> T) async throws -> T {
        let floor = ContinuousClock.now.advanced(by: Self.answerFloor)
        let result = try await answer()
        try? await Task.sleep(until: floor)
        return result
    }
}
