import AuthCore
import Foundation
import HTTPServer

/// The provider identities linked to an account: the owner's own (listed, linked from the provider
/// callback, unlinked — on the pages and PocketBase's `_externalAuths`) and any account's, for
/// staff and for answers that name an account's providers. Each change is audited once.
public struct ProviderLinks: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("pocketbase-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// The signed-in person's links, as the backend lists them to its owner.
    public func own(_ signedIn: SignedIn) async throws -> [ExternalAuth] {
        try await env.backend.externalAuths(userID: signedIn.user.id, session: signedIn.backendSession)
    }

    /// Whether linking a provider in `signedIn` must wait for a new sign-in (`RecentSignIn`).
    public func needsFreshSignIn(_ signedIn: SignedIn) -> Bool {
        RecentSignIn.isStale(signedIn, now: env.clock())
    }

    /// Refuses a link `signedIn` may not make. A link is a way in given on the session's word:
    /// never through an impersonation (`ImpersonationRefusal`), and only in a recent sign-in
    /// (`FreshSignInRequired`), never on an unproven account (`AccountTrust`). Asked before anyone
    /// is sent to the provider, and again by `link`.
    public func checkMayLink(_ signedIn: SignedIn) throws {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        try AccountTrust(env: env).refuseNewWayIn(on: signedIn.user)
        guard !needsFreshSignIn(signedIn) else { throw FreshSignInRequired(.linkProvider) }
    }

    /// Links `identity` to the signed-in account (`checkMayLink` first); the backend's refusal, or
    /// nil when linked.
    public func link(_ identity: ExternalIdentity, to signedIn: SignedIn, request: Request) async throws -> ExternalAuthError? {
        try checkMayLink(signedIn)
        let user = signedIn.user.id.rawValue
        do {
            _ = try await env.backend.link(identity, session: signedIn.backendSession)
        } catch let error as ExternalAuthError {
            await env.audit.record(
                .externalAuthLinkFailed, actor: user, subject: user, request: request,
                data: AuditTrail.data(["provider": .string(identity.provider), "reason": .string("\(error)")], via: via))
            return error
        }
        await env.audit.record(
            .externalAuthLinked, actor: user, subject: user, request: request,
            data: AuditTrail.data(
                ["provider": .string(identity.provider), "providerId": .string(identity.subject), "how": "link"], via: via))
        return nil
    }

    /// The owner removes their link to `provider`; throws the backend's `ExternalAuthError` (the
    /// last way to sign in, no such link).
    public func unlink(_ provider: String, of signedIn: SignedIn, request: Request) async throws {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.credentialChange }
        try await env.backend.unlinkExternalAuth(userID: signedIn.user.id, provider: provider, session: signedIn.backendSession)
        await env.audit.recordOwnAct(
            .externalAuthUnlinked, of: signedIn, request: request,
            data: AuditTrail.data(["provider": .string(provider)], via: via))
    }

    /// Any account's links.
    public func links(of userID: UserID) async throws -> [ExternalAuth] {
        try await env.backend.admin.externalAuths(of: userID)
    }

    /// One link by its id; nil when there is none.
    public func link(id: String) async throws -> ExternalAuth? {
        try await env.backend.admin.externalAuth(id: id)
    }

    /// A link a superuser makes for an account (seeding and support).
    public func add(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        try await env.backend.admin.linkExternalAuth(userID: userID, provider: provider, providerID: providerID)
    }

    /// A superuser removes `link` (`UserAdministration.unlink`, audited as staff's act).
    public func remove(_ link: ExternalAuth, by staff: Staff, request: Request) async throws {
        let user = try await env.backend.admin.user(link.userID)
        try await UserAdministration(env: env, staff: staff, request: request, via: via ?? "")
            .unlink(link.provider, of: user)
    }
}
