import AuthCore
import Foundation
import GatehouseWeb
import HTTPServer
import HTTPTestClient
import Logging
import PocketBaseTestSupport
import Secrets
import Store
import TestScope
import Testing

/// Gatehouse in proxy mode in front of a real PocketBase binary: the hosted pages run the whole
/// journey on PocketBase through the client core, and PocketBase's own API sees the result.
@Suite(.stopsWhatItStarts) struct ProxyModeTests {
    /// Runs `body` with a fresh PocketBase and Gatehouse in front of it, and always stops both.
    private func withProxy(
        superuser: (String, String)?,
        _ body: (PocketBaseServer, ProxyGatehouse) async throws -> Void
    ) async throws {
        try await ProxyGatehouse.run(superuser: superuser, body)
    }

    @Test func signUpVerifySignInAndSetProfileOnARealPocketBase() async throws {
        try await withProxy(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            pocketBase, gatehouse in
            let browser = Browser(port: gatehouse.port)
            let email = "ada-\(UUID().uuidString.prefix(6).lowercased())@example.com"

            // Sign up on Gatehouse's page: the account is created on PocketBase, which mails a link.
            _ = try await browser.get("/auth/sign-up")
            let signUp = try await browser.post(
                "/auth/sign-up",
                [
                    ("email", email), ("password", "correct horse battery"),
                    ("name", "Ada Lovelace")
                ])
            #expect(signUp.status == 303)
            let verifyPage = try await browser.get(try #require(signUp.header("Location")))
            #expect(verifyPage.text.contains("Check your email"), "PocketBase verifies by link")

            // Signing in before verifying is sent to the verify page.
            _ = try await browser.get("/auth/sign-in")
            let early = try await browser.post("/auth/sign-in", [("email", email), ("password", "correct horse battery")])
            #expect(early.header("Location")?.hasPrefix("/auth/verify?email=") == true)

            // The mail PocketBase sent links to Gatehouse's /auth/verify-link.
            let link = try await pocketBase.smtp.waitForMatch(
                to: email, pattern: #"href="(http://127\.0\.0\.1:\#(gatehouse.port)/auth/verify-link\?token=[^"]+)""#)
            let path = String(link.dropFirst("http://127.0.0.1:\(gatehouse.port)".count))
            let verified = try await browser.get(path)
            #expect(verified.status == 200)
            #expect(verified.text.contains("Your email is verified"))

            // Sign in and change the profile through the pages.
            _ = try await browser.get("/auth/sign-in")
            let signIn = try await browser.post("/auth/sign-in", [("email", email), ("password", "correct horse battery")])
            #expect(signIn.status == 303)
            #expect(signIn.header("Location") == "/account")
            let account = try await browser.get("/account")
            #expect(account.status == 200)
            #expect(account.text.contains("Ada Lovelace"))
            let saved = try await browser.post(
                "/account",
                [
                    ("name", "Ada King"), ("bio", "Wrote the first program."), ("avatar_url", ""),
                    ("custom_key_0", "team"), ("custom_value_0", "analytical-engine")
                ])
            #expect(saved.status == 303)
            #expect(saved.header("Location") == "/account?notice=saved")
            let afterSave = try await browser.get("/account?notice=saved")
            #expect(afterSave.text.contains("Ada King"))
            #expect(afterSave.text.contains("analytical-engine"))

            // PocketBase's own API shows the verified user and the profile.
            let token = try await pocketBase.superuserToken()
            let filter = "email='\(email)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let list = try await pocketBase.request("GET", "/api/collections/users/records?filter=\(filter)", token: token)
            let record = try #require((list["items"] as? [[String: Any]])?.first)
            #expect(record["verified"] as? Bool == true)
            #expect(record["name"] as? String == "Ada King")
            let profile = try #require(record["profile"] as? [String: Any])
            #expect(profile["bio"] as? String == "Wrote the first program.")
            #expect(profile["team"] as? String == "analytical-engine")

            // Gatehouse kept its own browser session, with PocketBase's token beside it — sealed
            // (issue 9, item 7): the database file alone does not hold a usable token.
            let credentials = try await gatehouse.database.credentialCount()
            #expect(credentials == 1)
            let stored = try await PythonScript.run(
                "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT credential FROM session_credentials').fetchone()[0])",
                arguments: [gatehouse.directory.appendingPathComponent("gatehouse.sqlite").path])
            #expect(stored.hasPrefix("sealed:"), "stored as \(stored.prefix(12))…")
            // A JWT starts `{"alg":` — "eyJhbGciOi" in base64; three letters alone turn up in random text.
            #expect(!stored.contains("eyJhbGciOi"), "a JWT in clear text")

            // Signing out deletes it: a token that outlives the session could still act as the user.
            let signedOut = try await browser.post("/auth/sign-out", [])
            #expect(signedOut.status == 303)
            #expect(try await browser.get("/account", follow: false).status == 303)
            #expect(try await gatehouse.database.credentialCount() == 0)
        }
    }

    @Test func aMissingCapabilityIsAClearMessageNotACrash() async throws {
        // PocketBase has no 6-digit codes: the code form says so instead of failing. Without a
        // superuser, pages still work as the signed-in user through PocketBase's own token.
        try await withProxy(superuser: nil) { pocketBase, gatehouse in
            let browser = Browser(port: gatehouse.port)
            _ = try await browser.get("/auth/sign-in")  // picks up a CSRF token (the link-mode verify page has no code form)
            let code = try await browser.post("/auth/verify", [("email", "x@example.com"), ("code", "123456")])
            #expect(code.status == 422)
            #expect(code.text.contains("Verifying email with a code is not supported by the backend"))
            _ = try await browser.get("/auth/sign-in")
            let wrong = try await browser.post("/auth/sign-in", [("email", "nobody@example.com"), ("password", "wrong password")])
            #expect(wrong.status == 401)

            let email = "grace-\(UUID().uuidString.prefix(6).lowercased())@example.com"
            let token = try await pocketBase.superuserToken()
            try await pocketBase.request(
                "POST", "/api/collections/users/records", token: token,
                body: [
                    "email": email, "password": "hopper-1906", "passwordConfirm": "hopper-1906", "verified": true, "name": "Grace"
                ])
            _ = try await browser.get("/auth/sign-in")
            let signIn = try await browser.post("/auth/sign-in", [("email", email), ("password", "hopper-1906")], follow: true)
            #expect(signIn.status == 200)
            #expect(signIn.text.contains("Grace"))
            let saved = try await browser.post("/account", [("name", "Grace Hopper"), ("bio", ""), ("avatar_url", "")])
            #expect(saved.header("Location") == "/account?notice=saved")
            #expect(try await browser.get("/account").text.contains("Grace Hopper"))
        }
    }
}
