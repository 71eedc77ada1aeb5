import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The FDI's mailed flows: email verification (Gatehouse mails the link; the frontend spends its
/// token) with the `st-ev` claim following, and the password reset by mailed token.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIMailTests {
    static let password = "Correct-horse-battery-9"

    /// The token in the newest mailed link to `email`.
    static func linkToken(_ gatehouse: TestGatehouse, _ email: String) async throws -> String {
        let link = try #require(try await gatehouse.mails(to: email).compactMap { $0["link"] as? String }.first { !$0.isEmpty })
        let items = URLComponents(string: link)?.queryItems ?? []
        return try #require(items.first { $0.name == "token" }?.value, "no token in \(link)")
    }

    /// Sign-up leaves `st-ev` false; `verify/token` mails a link; its token spent through
    /// `user/email/verify` proves the address. The sign-up's session was provisional, so the proof
    /// ends it (Gatehouse's account-trust rule); a new sign-in's token says `st-ev` true, and
    /// `verify/token` now answers `EMAIL_ALREADY_VERIFIED_ERROR`.
    @Test func verificationByMailedTokenTurnsTheClaimTrue() async throws {
        let gatehouse = try await TestGatehouse(verification: .link)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "gu@example.com", Self.password).status == 200)
        #expect(app.emailVerifiedClaim == false)
        let isVerified = try await app.call("GET", "/auth/user/email/verify", rid: "emailverification")
        #expect(isVerified.json["isVerified"] as? Bool == false && isVerified.response.header("front-token") != nil)
        let mailed = try await app.call("POST", "/auth/user/email/verify/token", rid: "emailverification")
        #expect(mailed.status == 200 && mailed.json["status"] as? String == "OK", "\(mailed.json)")
        let token = try await Self.linkToken(gatehouse, "gu@example.com")

        let wrong = try await app.call("POST", "/auth/user/email/verify", ["method": "token", "token": "not-a-token"])
        #expect(wrong.json["status"] as? String == "EMAIL_VERIFICATION_INVALID_TOKEN_ERROR")
        let spent = try await app.call("POST", "/auth/user/email/verify", ["method": "token", "token": token])
        #expect(spent.status == 200 && spent.json["status"] as? String == "OK", "\(spent.json)")
        #expect(try await app.call("GET", "/auth/user/email/verify").status == 401, "the provisional session ended")

        let again = FDIScript(gatehouse)
        #expect(try await again.emailPassword("signin", "gu@example.com", Self.password).json["status"] as? String == "OK")
        #expect(again.emailVerifiedClaim == true)
        let already = try await again.call("POST", "/auth/user/email/verify/token")
        #expect(already.json["status"] as? String == "EMAIL_ALREADY_VERIFIED_ERROR")
    }

    /// `reset/token` answers `OK` for any address and mails a known one; the mailed token sets a
    /// new password once (a second use is `RESET_PASSWORD_INVALID_TOKEN_ERROR`), every session of
    /// the account ends, and only the new password signs in.
    @Test func passwordResetByMailedToken() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "ha@example.com", Self.password).status == 200)
        for email in ["ha@example.com", "nobody@example.com"] {
            let asked = try await app.call(
                "POST", "/auth/user/password/reset/token", ["formFields": [["id": "email", "value": email]]], rid: "emailpassword"
            )
            #expect(asked.status == 200 && asked.json["status"] as? String == "OK", "\(email): \(asked.json)")
        }
        #expect(try await gatehouse.mails(to: "nobody@example.com").isEmpty)
        let token = try await Self.linkToken(gatehouse, "ha@example.com")
        let newPassword = "Another-staple-battery-7"
        let body: [String: Any] = ["method": "token", "token": token, "formFields": [["id": "password", "value": newPassword]]]
        let reset = try await app.call("POST", "/auth/user/password/reset", body, rid: "emailpassword")
        #expect(reset.json["status"] as? String == "OK", "\(reset.json)")
        #expect(
            try await app.call("POST", "/auth/user/password/reset", body).json["status"] as? String
                == "RESET_PASSWORD_INVALID_TOKEN_ERROR")
        #expect(try await app.call("GET", "/auth/user/email/verify").status == 401, "the reset ended the session")
        #expect(
            try await app.emailPassword("signin", "ha@example.com", Self.password).json["status"] as? String
                == "WRONG_CREDENTIALS_ERROR")
        #expect(try await app.emailPassword("signin", "ha@example.com", newPassword).json["status"] as? String == "OK")
    }
}
