import AuthCore
import Foundation
import Testing

@testable import Accounts

/// Account trust: an account whose address nobody has proven gets no session and no new way in,
/// unless the way in's contract (`WayInPolicy`) admits it.
@Suite struct TrustRuleTests {
    @Test func anUnprovenAccountIsRefusedASessionUnlessTheWayInAdmitsIt() async throws {
        let h = try AccountsHarness()
        try await h.account("ann@example.com", verified: false)
        let pages = try await PasswordSignIn(env: h.accounts, via: nil).attempt(
            email: "ann@example.com", password: AccountsHarness.password, request: try h.request())
        #expect(pages == .refused(.emailNotVerified(email: "ann@example.com")))
        let descope = try await PasswordSignIn(env: h.accounts, via: "descope-api", policy: .descopeAPI).attempt(
            email: "ann@example.com", password: AccountsHarness.password, request: try h.request())
        #expect(descope.session?.user.email == "ann@example.com")
    }

    @Test func aNewWayInNeedsAProvenAddressUnlessTheWayInAdmitsIt() async throws {
        let h = try AccountsHarness()
        let unproven = try await h.account("ann@example.com", verified: false)
        let proven = try await h.account("bo@example.com")
        let trust = AccountTrust(env: h.accounts)
        #expect(trust.isUnproven(unproven) && !trust.isUnproven(proven))
        #expect(throws: AuthError.emailNotVerified(email: "ann@example.com")) { try trust.refuseNewWayIn(on: unproven) }
        try trust.refuseNewWayIn(on: unproven, policy: .descopeAPI)
        try trust.refuseNewWayIn(on: proven)
    }
}
