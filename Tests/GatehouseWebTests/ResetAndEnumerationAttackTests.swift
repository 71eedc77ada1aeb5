import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 12: a password change spends live reset links and codes (so one mailed before
/// the change cannot undo it), and the JSON APIs tell no account from another where Gatehouse's own
/// rules decide: a taken address signs up like a free one, a dead reset code reads like an unknown.
@Suite(.stopsWhatItStarts) struct ResetAndEnumerationAttackTests {
    static let email = "owner@example.com"
    static let password = "correct horse battery"

    /// A signed-in browser for a new account and a reset link mailed to it.
    private func accountWithResetLink(_ gatehouse: TestGatehouse) async throws -> (Browser, String) {
        let browser = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        _ = try await gatehouse.script.call(
            "POST", "/api/auth/email/send-reset-password", ["email": Self.email], bearer: "anon_key")
        return (browser, try await gatehouse.mailedLinkToken(to: Self.email, subject: "Reset your Gatehouse password"))
    }

    /// The attacker's late use of `link`: refused, since the password changed after it was mailed.
    private func expectSpent(_ gatehouse: TestGatehouse, _ link: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let late = try await gatehouse.script.call(
            "POST", "/api/auth/email/reset-password", ["otp": link, "newPassword": "the attacker's choice"], bearer: "anon_key")
        #expect(late.status == 400, "\(late.text)", sourceLocation: sourceLocation)
        #expect(try await gatehouse.database.user(email: Self.email) != nil)
    }

    @Test func theOwnersPasswordChangeSpendsAResetLinkMailedBefore() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (browser, link) = try await accountWithResetLink(gatehouse)
        _ = try await browser.get("/account/security")
        let changed = try await browser.post(
            "/account/security/password", [("current_password", Self.password), ("new_password", "a new passphrase here")])
        #expect(changed.status == 303, "\(changed.status)")
        try await expectSpent(gatehouse, link)
        await gatehouse.stop()
    }

    @Test func aStaffPasswordSetSpendsAResetLinkMailedBefore() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, link) = try await accountWithResetLink(gatehouse)
        let userID = try #require(try await gatehouse.database.user(email: Self.email)?.id.rawValue)
        let set = try await gatehouse.script.call(
            "PATCH", "/_/api/users/\(userID)", ["password": "set by support staff"], bearer: try await gatehouse.adminToken())
        #expect(set.status == 200, "\(set.text)")
        try await expectSpent(gatehouse, link)
        await gatehouse.stop()
    }

    @Test func insForgeSignUpOfATakenAddressAnswersLikeAFreeOne() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let body = ["email": Self.email, "password": Self.password]
        let first = try await gatehouse.script.call("POST", "/api/auth/users?client_type=mobile", body, bearer: "anon_key")
        let again = try await gatehouse.script.call("POST", "/api/auth/users?client_type=mobile", body, bearer: "anon_key")
        let free = try await gatehouse.script.call(
            "POST", "/api/auth/users?client_type=mobile", ["email": "free@example.com", "password": Self.password],
            bearer: "anon_key")
        #expect(first.status == 200 && again.status == free.status, "\(again.text)")
        #expect(Set(again.json.keys) == Set(free.json.keys), "\(again.text)")
        #expect(again.json["requireEmailVerification"] as? Bool == true)
        let subjects = try await gatehouse.mails(to: Self.email).compactMap { $0["subject"] as? String }
        #expect(subjects.contains("Someone tried to sign up with your Gatehouse address"), "the owner hears of it")
        await gatehouse.stop()
    }

    @Test func aDeadResetCodeReadsLikeOneForAnUnknownAddress() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        _ = try await gatehouse.script.call(
            "POST", "/api/auth/email/send-reset-password", ["email": Self.email], bearer: "anon_key")
        let code = try await gatehouse.latestCode(for: Self.email)
        let exchange = "/api/auth/email/exchange-reset-password-token"
        let used = try await gatehouse.script.call("POST", exchange, ["email": Self.email, "code": code], bearer: "anon_key")
        #expect(used.status == 200, "\(used.text)")
        let dead = try await gatehouse.script.call("POST", exchange, ["email": Self.email, "code": code], bearer: "anon_key")
        let unknown = try await gatehouse.script.call(
            "POST", exchange, ["email": "nobody@example.com", "code": code], bearer: "anon_key")
        #expect(dead.status == unknown.status && dead.text == unknown.text, "\(dead.text) vs \(unknown.text)")
        await gatehouse.stop()
    }
}
