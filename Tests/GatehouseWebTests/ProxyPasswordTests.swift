import Foundation
import HTTPTestClient
import PocketBaseTestSupport
import TestScope
import Testing

/// Password change and reset through the pages in front of a real PocketBase: PocketBase ends every
/// token of the account, Gatehouse keeps this browser on the fresh one and ends its other browsers.
@Suite(.stopsWhatItStarts) struct ProxyPasswordTests {
    @Test func changeThenResetOnARealPocketBase() async throws {
        try await ProxyGatehouse.run(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            pocketBase, gatehouse in
            let email = "pw-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let laptop = Browser(port: gatehouse.port)
            _ = try await laptop.get("/auth/sign-up")
            #expect(
                try await laptop.post("/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")]).status
                    == 303)
            let verify = try await pocketBase.smtp.waitForMatch(
                to: email, pattern: #"href="http://127\.0\.0\.1:\#(gatehouse.port)(/auth/verify-link\?token=[^"]+)""#)
            #expect(try await laptop.get(verify).status == 200)

            func signIn(_ password: String) async throws -> (Browser, Int) {
                let browser = Browser(port: gatehouse.port)
                _ = try await browser.get("/auth/sign-in")
                return (browser, try await browser.post("/auth/sign-in", [("email", email), ("password", password)]).status)
            }
            _ = try await laptop.get("/auth/sign-in")
            #expect(try await laptop.post("/auth/sign-in", [("email", email), ("password", "quiet-otter-123")]).status == 303)
            let (phone, phoneStatus) = try await signIn("quiet-otter-123")
            #expect(phoneStatus == 303)

            // Change: this browser goes on with PocketBase's fresh token, the phone is signed out.
            _ = try await laptop.get("/account/security")
            let wrong = try await laptop.post(
                "/account/security/password", [("current_password", "not-it-at-all"), ("new_password", "changed-456")])
            #expect(wrong.status == 422)
            let changed = try await laptop.post(
                "/account/security/password", [("current_password", "quiet-otter-123"), ("new_password", "changed-456")])
            #expect(changed.header("Location") == "/account/security?notice=password-changed")
            #expect(try await laptop.get("/account", follow: false).status == 200)
            #expect(try await phone.get("/account", follow: false).status == 303)

            // Reset: link only (PocketBase mails no codes), pointing at Gatehouse's page.
            let visitor = Browser(port: gatehouse.port)
            _ = try await visitor.get("/auth/forgot-password")
            let asked = try await visitor.post("/auth/forgot-password", [("email", email)])
            let checkMail = try await visitor.get(try #require(asked.header("Location")))
            #expect(checkMail.text.contains("Check your email"))
            #expect(!checkMail.text.contains("/auth/reset-password/code"))
            let link = try await pocketBase.smtp.waitForMatch(
                to: email, pattern: #"href="http://127\.0\.0\.1:\#(gatehouse.port)(/auth/reset-password\?token=[^"]+)""#)
            #expect(try await visitor.get(link).status == 200)
            let form = try await visitor.get(link)
            let token = try #require(
                form.text.range(of: #"name="token" value="([^"]+)""#, options: .regularExpression)
                    .map { form.text[$0].split(separator: "\"")[3] }.map(String.init))
            let done = try await visitor.post("/auth/reset-password", [("token", token), ("password", "reset-789")])
            #expect(done.header("Location") == "/account?notice=password-reset")
            #expect(try await visitor.get("/account", follow: false).status == 200)
            #expect(try await laptop.get("/account", follow: false).status == 303)
            #expect(try await visitor.post("/auth/reset-password", [("token", token), ("password", "again-000")]).status == 400)
            #expect(try await signIn("changed-456").1 == 401)
            #expect(try await signIn("reset-789").1 == 303)
        }
    }
}
