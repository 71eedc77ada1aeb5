import AuthCore
import Foundation
import HTTPServer

/// Signing in with a provider identity Gatehouse has checked, whichever way in — the provider
/// callback page, PocketBase's `auth-with-oauth2`, InsForge's ID-token sign-in: the seam's
/// `signIn(with:)` (which signs in, links or creates the account) and one audit shape for all of
/// them (`sign_in.failed` for a refused identity, `external_auth.linked` when the identity was new
/// to the account, `sign_in.completed`), and the refusals that came before the seam.
public struct ProviderSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// Signs `identity` in; `allowCreate` lets an identity without an account make one. An account
    /// that asks for its second step answers `.secondStep`, never a session; an identity the
    /// backend refuses (a conflict, sign-up closed) answers `.refused(.provider(…))`.
    public func attempt(_ identity: ExternalIdentity, allowCreate: Bool, request: Request) async throws -> ExternalSignIn {
        let result: ExternalSignIn
        do {
            result = try await env.pageBackend.signIn(with: identity, allowCreate: allowCreate)
        } catch let error as ExternalAuthError {
            await failed(provider: identity.provider, reason: "\(error)", request: request)
            return ExternalSignIn(result: .refused(.provider(error)), outcome: nil)
        }
        guard let user = result.result.session?.user.id.rawValue else { return result }
        if let how = result.outcome, how != .existingLink {
            await env.audit.record(
                .externalAuthLinked, actor: user, subject: user, request: request,
                data: AuditTrail.data(
                    [
                        "provider": .string(identity.provider), "providerId": .string(identity.subject),
                        "how": .string(how.rawValue)
                    ], via: via))
        }
        await env.audit.record(
            .signInCompleted, actor: user, subject: user, request: request,
            data: AuditTrail.data(["provider": .string(identity.provider)], via: via))
        return result
    }

    /// A provider round trip that did not give an identity (a bad state, the provider's error, an
    /// exchange or id_token that did not check out); `reason` never holds a token.
    public func roundTripRefused(provider: String, reason: String, request: Request) async {
        await env.audit.record(
            .oauthRefused, request: request,
            data: AuditTrail.data(["provider": .string(provider), "reason": .string(reason)], via: via))
    }

    /// An ID token that did not check out, or came a second time.
    public func failed(provider: String, reason: String, request: Request) async {
        await env.audit.record(
            .signInFailed, request: request,
            data: AuditTrail.data(["provider": .string(provider), "reason": .string(reason)], via: via))
    }

    /// Spends an ID token (`idHash`, its keyed hash): true the first time, false when it signed in
    /// before. Kept until `expiresAt`, after which the token itself is refused.
    public func spendToken(idHash: String, expiresAt: Date) async throws -> Bool {
        try await env.database.markTokenIDUsed(idHash: idHash, expiresAt: expiresAt, now: env.clock())
    }
}
