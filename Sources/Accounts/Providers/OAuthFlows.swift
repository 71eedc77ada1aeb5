import AuthCore
import Foundation
import Secrets
import Store

/// Provider round trips started on Gatehouse's pages: each flow's state is random and stored only
/// as its keyed hash, bound to the browser that started it (its binding's hash), and consumed once.
public struct OAuthFlows: Sendable {
    let env: Accounts
    let hasher: KeyedHash

    public init(env: Accounts, hasher: KeyedHash) { (self.env, self.hasher) = (env, hasher) }

    /// How long a provider round trip may take.
    public static let lifetime: TimeInterval = 600

    /// Stores a new flow under `state` for the browser holding `browserBinding`; a link's ends in
    /// its account's time (`AccountClocks`), a sign-in's in the server's.
    public func begin(
        state: String, browserBinding: String, provider: String, purpose: ProviderFlow.Purpose, userID: UserID?,
        codeVerifier: String, nonce: String, appRequest: String?
    ) async throws {
        let now = env.clocks.now(forAccountIfAny: userID)
        try await env.database.insertOAuthFlow(
            OAuthFlowRecord(
                stateHash: hasher.hex(state), browserHash: hasher.hex(browserBinding), provider: provider,
                purpose: purpose.stored,
                userID: userID, codeVerifier: codeVerifier, nonce: nonce, appRequest: appRequest, createdAt: now,
                expiresAt: now.addingTimeInterval(Self.lifetime)))
    }

    /// The flow `state` names, spent by this call (a second callback finds none); nil when unknown.
    /// Whether it is still good for this browser and provider is `OAuthFlowCheck`'s to say.
    public func finish(state: String) async throws -> ProviderFlow? {
        try await env.database.consumeOAuthFlow(stateHash: hasher.hex(state), at: env.clock()).map(ProviderFlow.init)
    }

    /// Now in the time `flow` runs in, to tell whether it has ended: its account's for a link.
    public func now(of flow: ProviderFlow?) -> Date { env.clocks.now(forAccountIfAny: flow?.userID) }

    /// The flow `state` names, left in place (the test provider asks whether it is an app's).
    public func pending(state: String) async throws -> ProviderFlow? {
        try await env.database.oauthFlow(stateHash: hasher.hex(state)).map(ProviderFlow.init)
    }

    /// The hash a flow keeps of a browser binding, to compare with the one it was started with.
    public func browserHash(_ binding: String) -> String { hasher.hex(binding) }
}
