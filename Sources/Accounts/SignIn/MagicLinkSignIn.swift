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
    let via: String?

    public init(env: Accounts, via: String? = nil) { (self.env, self.via) = (env, via) }

    /// Opens the link in the browser holding `nonce` (the cookie set when it asked), or — nil — in
    /// a browser the person confirmed "Continue as …" in. Refusals: `.openedElsewhere` (the link is
    /// good but was asked for in another browser: the person confirms first), else `.expired` —
    /// spent, expired, superseded, unknown, throttled or refused: one answer.
    /// Opened with a guest's session (`guest`), a link for an address without an account upgrades
    /// that guest (`GuestSignUp`).
    public func open(token: String, nonce: String?, upgrading guest: SignedIn? = nil, request: Request) async throws
        -> SignInResult
    {
        try await open(token: token, binding: nonce.map(binding), upgrading: guest, request: request)
    }

    /// `open` with the binding itself: an enchanted link's (`EnchantedLinkSignIn`) is its pending
    /// ref's, and only that binding opens it — never a confirmation in place of one.
    func open(token: String, binding: String?, upgrading guest: SignedIn? = nil, request: Request) async throws
        -> SignInResult
    {
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
            let result =
                if let guest {
                    try await env.pageBackend.guestSignUps().signIn(
                        magicLinkToken: token, browserBinding: binding, upgrading: guest.user.id)
                } else {
                    try await env.pageBackend.signIn(magicLinkToken: token, browserBinding: binding)
                }
            if let guest {
                await GuestSignUp.recordUpgrade(of: guest, result, method: "magic_link", env: env, via: via, request: request)
            }
            return await env.audit.completed(result, ["method": "magic_link"], via: via, request: request)
        } catch AuthError.magicLinkOpenedElsewhere(let email) {
            return .refused(.openedElsewhere(email: email))
        } catch let error as AuthError {
            return await refused("\(error)", request)
        }
    }

    /// What ties a link to the browser that asked for it: a keyed hash of the nonce in its cookie,
    /// so the backend never holds the cookie's value.
    public func binding(of nonce: String) -> String { env.sessions.bindings.hasher.hex("magic-binding:" + nonce) }

    /// Records a link refused before it reached the backend (malformed) or by it.
    public func refused(_ reason: String, _ request: Request) async -> SignInResult {
        await env.audit.record(
            .signInFailed, request: request, data: AuditTrail.data(["method": "magic_link", "reason": .string(reason)], via: via))
        return .refused(.expired)
    }
}
