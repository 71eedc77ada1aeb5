import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 42, item 1: the sign-up's verification mail says "if you didn't create this account,
/// ignore this mail" and carries a "this wasn't me" link that removes the unproven account — after
/// a confirm button (opening the link removes nothing), and never once the address is proven.
@Suite(.stopsWhatItStarts) struct NotMeLinkTests {
    static let email = AccountTrustAttackTests.victim

    /// The path and query of the "this wasn't me" link in the newest mail to `email`.
    private func notMeLink(_ gatehouse: OAuthGatehouse) async throws -> String {
        let mail = try #require(try await gatehouse.mailbox.mails(to: Self.email, limit: 1).first)
        #expect(mail.text.contains("If you didn't create this account, ignore this message"))
        let start = try #require(mail.text.range(of: "/auth/not-me?token="), "no link in \(mail.text)")
        let end = mail.text[start.lowerBound...].firstIndex(where: \.isWhitespace) ?? mail.text.endIndex
        return String(mail.text[start.lowerBound..<end])
    }

    @Test func theOwnerOfTheAddressRemovesAnAccountSomeoneElseMade() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        let created = try await trust.script.call(
            "POST", "/api/auth/users", ["email": Self.email, "password": AccountTrustAttackTests.attackerPassword])
        #expect(created.status == 200, "\(created.text)")
        let link = try await notMeLink(gatehouse)

        let owner = gatehouse.browser()
        let page = try await owner.get(link)
        #expect(page.status == 200 && page.text.contains("remove the account"), "the link answered \(page.status)")
        #expect(try await gatehouse.database.user(email: Self.email) != nil, "opening the link removed the account")
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
        let removed = try await owner.post("/auth/not-me", [("token", token)])
        #expect(removed.status == 200, "removing answered \(removed.status)")
        #expect(try await gatehouse.database.user(email: Self.email) == nil, "the account survived")
        #expect(try await gatehouse.auditTypes().contains("account.disowned"))
        await gatehouse.stop()
    }

    @Test func aProvenAccountIsNeverRemoved() async throws {
        let gatehouse = try await OAuthGatehouse(verification: .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        _ = try await trust.script.call(
            "POST", "/api/auth/users", ["email": Self.email, "password": AccountTrustAttackTests.attackerPassword])
        let link = try await notMeLink(gatehouse)
        let code = try await trust.newestMail(to: Self.email, with: "code")
        let verified = try await trust.script.call("POST", "/api/auth/email/verify", ["email": Self.email, "otp": code])
        #expect(verified.status == 200, "\(verified.text)")

        let owner = gatehouse.browser()
        #expect(try await owner.get(link).status == 400)
        let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
        _ = try await owner.get("/auth/sign-in")  // a form's CSRF token, as a kept-open page would hold
        let removed = try await owner.post("/auth/not-me", [("token", token)])
        #expect(removed.status == 400, "removing a proven account answered \(removed.status)")
        #expect(try await gatehouse.database.user(email: Self.email) != nil, "a proven account was removed")
        await gatehouse.stop()
    }
}
