import Foundation
import HTTPTestClient
import TestScope
import Testing

@testable import Accounts
@testable import GatehouseWeb

/// Issue 22, item 4: a stolen app token is not enough to move an account to another address.
/// Through the PocketBase API the password is asked at `confirm-email-change` (as PocketBase asks
/// it), with PocketBase's field errors; an impersonation token may not ask for a change at all.
@Suite(.stopsWhatItStarts) struct EmailChangeAttackTests {
    static let email = "owner@example.com"
    static let password = "correct horse battery"
    static let thief = "thief@example.com"

    private func ownerToken(_ gatehouse: TestGatehouse) async throws -> String {
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        let signIn = try await gatehouse.script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": Self.email, "password": Self.password])
        return try #require(signIn.json["token"] as? String, "\(signIn.text)")
    }

    @Test func aStolenPocketBaseTokenCannotConfirmAnEmailChangeWithoutThePassword() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let stolen = try await ownerToken(gatehouse)
        let asked = try await gatehouse.script.call(
            "POST", "/api/collections/users/request-email-change", ["newEmail": Self.thief], token: stolen)
        #expect(asked.status == 204, "\(asked.text)")
        let link = try await gatehouse.mailedLinkToken(to: Self.thief, subject: "Confirm your new Gatehouse email")

        let bare = try await gatehouse.script.call("POST", "/api/collections/users/confirm-email-change", ["token": link])
        #expect(bare.status == 400, "\(bare.text)")
        #expect((bare.json["data"] as? [String: Any])?["password"] as? [String: Any] != nil, "\(bare.text)")
        let guessed = try await gatehouse.script.call(
            "POST", "/api/collections/users/confirm-email-change", ["token": link, "password": "a guess at it"])
        #expect(guessed.status == 400, "\(guessed.text)")
        let problem = (guessed.json["data"] as? [String: Any])?["password"] as? [String: Any]
        #expect(problem?["code"] as? String == "validation_invalid_password", "\(guessed.text)")
        #expect(try await gatehouse.database.user(email: Self.email) != nil, "the address is unchanged")
        #expect(try await gatehouse.database.user(email: Self.thief) == nil)

        // The owner, who knows the password, confirms.
        let confirmed = try await gatehouse.script.call(
            "POST", "/api/collections/users/confirm-email-change", ["token": link, "password": Self.password])
        #expect(confirmed.status == 204, "\(confirmed.text)")
        #expect(try await gatehouse.database.user(email: Self.thief) != nil)
        await gatehouse.stop()
    }

    /// Issue 22 item 13: `confirm-email-change` takes one of the source's code checks like every
    /// other mailed token, so a guesser is stopped at the budget in PocketBase's 429 — and the
    /// owner's real link, from another address, still works.
    @Test func guessingEmailChangeTokensRunsOutOfCodeChecks() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let confirm = "/api/collections/users/confirm-email-change"
        for _ in 0..<Budget.codeChecks(ip: "").rule.limit {
            let guess = try await gatehouse.postJSON(
                confirm, ["token": UUID().uuidString, "password": "a guess"], anonKey: false, from: "127.0.0.2")
            #expect(guess.status == 400, "\(guess.text)")
        }
        let throttled = try await gatehouse.postJSON(
            confirm, ["token": UUID().uuidString, "password": "a guess"], anonKey: false, from: "127.0.0.2")
        #expect(throttled.status == 429, "\(throttled.status) \(throttled.text)")
        #expect(throttled.json["message"] as? String == "Too Many Requests." && throttled.json["status"] as? Int == 429)
        #expect((throttled.json["data"] as? [String: Any])?.isEmpty == true, "\(throttled.text)")
        #expect(Int(throttled.header("Retry-After") ?? "") ?? 0 > 0, "Retry-After")

        let owner = try await ownerToken(gatehouse)
        _ = try await gatehouse.script.call(
            "POST", "/api/collections/users/request-email-change", ["newEmail": "new@example.com"], token: owner)
        let link = try await gatehouse.mailedLinkToken(to: "new@example.com", subject: "Confirm your new Gatehouse email")
        let confirmed = try await gatehouse.script.call("POST", confirm, ["token": link, "password": Self.password])
        #expect(confirmed.status == 204, "another source is not throttled: \(confirmed.text)")
        await gatehouse.stop()
    }

    @Test func anImpersonationTokenCannotAskForAnEmailChange() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await ownerToken(gatehouse)
        try await gatehouse.createSuperuser("root@example.com", password: "staff-password-1")
        let staff = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password",
            ["identity": "root@example.com", "password": "staff-password-1"])
        let staffToken = try #require(staff.json["token"] as? String, "\(staff.text)")
        let userID = try #require(try await gatehouse.database.user(email: Self.email)?.id.rawValue)
        let impersonated = try await gatehouse.script.call(
            "POST", "/api/collections/users/impersonate/\(userID)", ["duration": 600], token: staffToken)
        let token = try #require(impersonated.json["token"] as? String, "\(impersonated.text)")

        let asked = try await gatehouse.script.call(
            "POST", "/api/collections/users/request-email-change", ["newEmail": Self.thief], token: token)
        #expect(asked.status == 403, "\(asked.text)")
        #expect(try await gatehouse.mails(to: Self.thief).isEmpty, "no link went out")
        await gatehouse.stop()
    }
}
