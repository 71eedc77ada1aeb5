import AuthCore
import HTTPServer
import ServerSeam

/// Opening a mailed sign-in link, with Gatehouse's rules around the seam's
/// `signIn(magicLinkToken:browserBinding:)`: one of the source's code checks
/// (`Budget.codeChecks`, shared with codes) before the backend looks, and the audit trail
/// (`sign_in.completed` or `sign_in.failed` with its reason, method `magic_link`).
public struct MagicLinkSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("supertokens-core"); nil for the pages.
    public let via: String?

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    public enum Outcome: Sendable {
        case signedIn(AuthSession)
        /// The link was right and the account asks for its second step.
        case secondStepRequired(MFAChallenge)
        /// The link is good but was asked for in another browser: the person confirms first.
        case openedElsewhere(email: String)
        /// Spent, expired, superseded, unknown, throttled or refused: one answer.
        case refused
    }

    /// Opens the link in the browser holding `nonce` (the cookie set when it asked), or — nil — in
    /// a browser the person confirmed "Continue as …" in.
    public func open(token: String, nonce: String?, request: Request) async throws -> Outcome {
        try await open(token: token, binding: nonce.map(binding), request: request)
    }

    /// `open` with the binding itself: an enchanted link's (`EnchantedLinkSignIn`) is its pending
    /// ref's, and only that binding opens it — never a confirmation in place of one.
    func open(token: String, binding: String?, request: Request) async throws -> Outcome {
        try env.requireSignIn(by: .magicLink)
        if await env.budgets.take(.codeChecks(ip: request.remoteAddress)) != nil {
            return await refused("rate_limited", request)
        }
        if binding == nil, let links = env.backend as? any EnchantedLinks,
            try await links.browserBinding(ofMagicLink: token).map(EnchantedLinkSignIn.isBinding) == true
        {
            return await refused("enchanted_link", request)
        }
        do {
            let session = try await env.pageBackend.signIn(magicLinkToken: token, browserBinding: binding)
            let user = session.user.id.rawValue
            await env.audit.record(
                .signInCompleted, actor: user, subject: user, request: request,
                data: AuditTrail.data(["method": "magic_link"], via: via))
            return .signedIn(session)
        } catch AuthError.magicLinkOpenedElsewhere(let email) {
            return .openedElsewhere(email: email)
        } catch AuthError.mfaRequired(let challenge) {
            return .secondStepRequired(challenge)
        } catch let error as AuthError {
            return await refused("\(error)", request)
        }
    }

    /// What ties a link to the browser that asked for it: a keyed hash of the nonce in its cookie,
    /// so the backend never holds the cookie's value.
    public func binding(of nonce: String) -> String { env.sessions.bindings.hasher.hex("magic-binding:" + nonce) }

    /// Records a link refused before it reached the backend (malformed) or by it.
    public func refused(_ reason: String, _ request: Request) async -> Outcome {
        await env.audit.record(
            .signInFailed, request: request, data: AuditTrail.data(["method": "magic_link", "reason": .string(reason)], via: via))
        return .refused
    }
}
