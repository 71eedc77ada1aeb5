import AuthCore
import Foundation
import Store
import Testing

@testable import Accounts
@testable import GatehouseWeb

/// The callback's decision table, without a server.
@Suite struct OAuthFlowCheckTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func flow(purpose: OAuthFlowPurpose = .signIn, user: UserID? = nil, consumed: Bool = false, expiresIn: TimeInterval = 300)
        -> ProviderFlow
    {
        var flow = OAuthFlowRecord(
            stateHash: "s", browserHash: "b", provider: "google", purpose: purpose, userID: user,
            codeVerifier: "v", nonce: "n", appRequest: nil, createdAt: now, expiresAt: now.addingTimeInterval(expiresIn))
        if consumed { flow.consumedAt = now }
        return ProviderFlow(flow)
    }

    func check(_ flow: ProviderFlow?, provider: String = "google", browser: String? = "b", user: UserID? = nil)
        -> OAuthFlowCheck.Refusal?
    {
        if case .failure(let refusal) = OAuthFlowCheck.evaluate(
            flow, provider: provider, browserHash: browser, signedIn: user, now: now)
        {
            return refusal
        }
        return nil
    }

    @Test func decisions() {
        #expect(check(flow()) == nil)
        #expect(check(nil) == .unknownState)
        #expect(check(flow(consumed: true)) == .replayed)
        #expect(check(flow(expiresIn: -1)) == .expired)
        #expect(check(flow(), provider: "github") == .wrongProvider)
        #expect(check(flow(), browser: nil) == .otherBrowser)
        #expect(check(flow(), browser: "x") == .otherBrowser)
        #expect(check(flow(purpose: .link, user: UserID("u1")), user: UserID("u2")) == .otherAccount)
        #expect(check(flow(purpose: .link, user: UserID("u1")), user: nil) == .otherAccount)
        #expect(check(flow(purpose: .link, user: UserID("u1")), user: UserID("u1")) == nil)
    }
}
