import AuthCore
import Foundation
import Testing

@testable import Accounts
@testable import Store

/// Sessions: a token opens only the kind of door it was made for; a session older than the
/// recent-sign-in window adds no way in on its own word; impersonation's policy.
@Suite struct SessionRuleTests {
    /// A PocketBase-API row for `email`, signed in through the owner; its token.
    private func apiToken(_ h: AccountsHarness, _ email: String) async throws -> String {
        let session = try #require(
            try await PasswordSignIn(env: h.accounts, via: "pocketbase-api").attempt(
                email: email, password: AccountsHarness.password, request: try h.request()
            ).session)
        return try await h.accounts.sessions.bindings.bind(
            session, kind: .pocketBaseAPI, request: try h.request(), impersonator: nil, lifetime: 3600)
    }

    @Test func aTokenOpensOnlyItsOwnKindOfSession() async throws {
        let h = try AccountsHarness()
        try await h.account("ann@example.com")
        let token = try await apiToken(h, "ann@example.com")
        let bindings = h.accounts.sessions.bindings
        #expect(await bindings.current(token: token, kind: .pocketBaseAPI, idleTimeout: nil)?.user.email == "ann@example.com")
        for other in SessionKind.allCases where other != .pocketBaseAPI {
            #expect(await bindings.current(token: token, kind: other, idleTimeout: nil) == nil, "opened as \(other)")
        }
    }

    @Test func aSessionPastTheRecentWindowSetsNoPasswordOnItsOwnWord() async throws {
        let h = try AccountsHarness()
        try await h.account("ann@example.com")
        let token = try await apiToken(h, "ann@example.com")
        h.advance(by: RecentSignIn.window + 1)
        let signedIn = try #require(
            await h.accounts.sessions.bindings.current(token: token, kind: .pocketBaseAPI, idleTimeout: nil))
        #expect(RecentSignIn.isStale(signedIn, now: h.now))
        await #expect(throws: FreshSignInRequired.self) {
            try await PasswordChange(env: h.accounts).setWithoutCurrent(
                "a brand new passphrase 9", of: signedIn, policy: .descopeAPI, request: try h.request())
        }
    }

    @Test func impersonationIsRefusedForDisabledAccountsAndFromInsideAnother() async throws {
        let h = try AccountsHarness()
        let ann = try await h.account("ann@example.com")
        let policy = ImpersonationPolicy(env: h.accounts)
        #expect(try await policy.refusal(of: ann, impersonating: false) == nil)
        #expect(try await policy.refusal(of: ann, impersonating: true) == .alreadyImpersonating)
        let disabled = try await h.backend.admin.updateUser(ann.id, UserUpdate(disabled: true))
        #expect(try await policy.refusal(of: disabled, impersonating: false) == .disabled)
    }
}
