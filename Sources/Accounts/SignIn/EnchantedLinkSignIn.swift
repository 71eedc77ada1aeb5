import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// Enchanted links (Descope's): an app asks for a sign-in link and polls with the `pendingRef` it
/// was given while the person opens the mailed link in any browser. The link is a magic link —
/// the same mail budgets, lifetime, single use, audit and second step (`MailRequests`,
/// `MagicLinkSignIn`) — bound to the pending ref's keyed hash, so only the app holding the ref
/// can sign in with it: no other way of opening a link (`magiclink/verify`, the pages' "Continue
/// as …", SuperTokens' `linkCode`) takes it. Opening it approves the sign-in without spending it (the approval is kept
/// in memory for the link's lifetime); the app's next poll spends it and signs in, once.
public struct EnchantedLinkSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("descope-api").
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// The page the mailed link opens (`?t=` the link's token), which approves the sign-in.
    public static let pagePath = "/auth/enchanted"

    public enum Start: Sendable {
        /// Mailed where the address may sign in; `pendingRef` is the app's to poll with.
        case sent(pendingRef: String)
        case held(Budgets.Refusal)
    }

    /// Mails the link (as a magic-link request, answered alike for every address), opening this
    /// server's page, or `appURL` (which passes the token to `approve`); an account it creates gets
    /// `signUpProfile`.
    public func start(
        email: String, allowSignUp: Bool, appURL: String? = nil, signUpProfile: Profile? = nil, request: Request
    ) async throws -> Start {
        let pendingRef = SecureRandom.token()
        switch try await MailRequests(env: env, via: via).magicLink(
            email: email, allowSignUp: allowSignUp, browserBinding: binding(of: pendingRef),
            opening: appURL.map(LinkOpening.app) ?? .page(Self.pagePath), signUpProfile: signUpProfile, request: request)
        {
        case .sent: return .sent(pendingRef: pendingRef)
        case .held(let refusal): return .held(refusal)
        }
    }

    /// The person opened the link (the page's button, or the app's `verify {token}`): true when it
    /// is a live enchanted link, whose app may now sign in with it. One of the source's code checks.
    public func approve(token: String, request: Request) async throws -> Bool {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        guard let links = env.backend as? any EnchantedLinks,
            let binding = try await links.browserBinding(ofMagicLink: token), Self.isBinding(binding)
        else {
            _ = await MagicLinkSignIn(env: env, via: via).refused("enchanted_link_unknown", request)
            return false
        }
        await env.enchantedLinks.approve(binding: binding, token: token)
        return true
    }

    /// The app's poll: signs in once the link is approved (`MagicLinkSignIn`, in the "browser" that
    /// asked: the ref is the nonce), and only once. Nil while it is not approved (or there is no
    /// such ref: the two read alike); `.refused(.expired)` once approved but the link no longer
    /// signs in (spent by an earlier poll, expired, refused).
    public func poll(pendingRef: String, request: Request) async throws -> SignInResult? {
        let bound = binding(of: pendingRef)
        switch await env.enchantedLinks.take(binding: bound) {
        case .waiting: return nil
        case .taken: return .refused(.expired)
        case .approved(let token):
            let result = try await MagicLinkSignIn(env: env, via: via).open(token: token, binding: bound, request: request)
            if case .refused = result { return .refused(.expired) }
            return result
        }
    }
}

extension EnchantedLinkSignIn {
    /// What starts an enchanted link's binding, so the owner of links can tell one from a
    /// browser's: it opens only for its pending ref (`MagicLinkSignIn.open(token:binding:request:)`).
    static let bindingMark = "enchanted:"

    /// True for an enchanted link's binding.
    static func isBinding(_ binding: String) -> Bool { binding.hasPrefix(bindingMark) }

    /// The binding of the link the app polls for with `pendingRef`: a keyed hash of it, marked.
    func binding(of pendingRef: String) -> String {
        Self.bindingMark + env.sessions.bindings.hasher.hex("enchanted-binding:" + pendingRef)
    }
}

/// Approved enchanted links by their binding, until the app's poll takes them. Kept in memory
/// (a restart forgets approvals: the person opens the link again), each for the links' lifetime.
actor EnchantedLinkApprovals {
    static let lifetime: TimeInterval = 10 * 60

    enum Entry: Sendable {
        case approved(token: String)
        case taken
    }

    enum Found: Sendable {
        case waiting
        case approved(token: String)
        case taken
    }

    private var entries: [String: (entry: Entry, expiresAt: Date)] = [:]
    private let clock: @Sendable () -> Date

    init(clock: @escaping @Sendable () -> Date) { self.clock = clock }

    func approve(binding: String, token: String) {
        let now = clock()
        entries = entries.filter { $0.value.expiresAt > now }
        if case .taken? = entries[binding]?.entry { return }
        entries[binding] = (.approved(token: token), now.addingTimeInterval(Self.lifetime))
    }

    /// The approval for `binding`, handed out once (later polls find it taken).
    func take(binding: String) -> Found {
        guard let found = entries[binding], found.expiresAt > clock() else { return .waiting }
        switch found.entry {
        case .taken: return .taken
        case .approved(let token):
            entries[binding] = (.taken, found.expiresAt)
            return .approved(token: token)
        }
    }
}
