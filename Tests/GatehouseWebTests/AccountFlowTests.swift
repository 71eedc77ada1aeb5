import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The whole account journey over HTTP against the real server, as a person would take it.
@Suite(.stopsWhatItStarts) struct AccountFlowTests {
    @Test func signUpVerifySignInProfileSignOutAndRestart() async throws {
        let gatehouse = try await TestGatehouse()
        let browser = gatehouse.browser()

        let signUpPage = try await browser.get("/auth/sign-up")
        #expect(signUpPage.status == 200)
        #expect(signUpPage.text.contains("name=\"email\""))

        let signUp = try await browser.post(
            "/auth/sign-up",
            [
                ("email", "Ada@Example.com"), ("password", "correct horse battery"), ("name", "Ada Lovelace")
            ])
        #expect(signUp.status == 303)
        #expect(signUp.header("Location")?.hasPrefix("/auth/verify?email=Ada%40Example.com") == true)

        let verifyPage = try await browser.get(try #require(signUp.header("Location")))
        #expect(verifyPage.text.contains("Ada@Example.com"))

        let mails = try await gatehouse.mails(to: "ada@example.com")
        #expect(mails.count == 1)
        let code = try #require(mails.first?["code"] as? String)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect((mails.first?["text"] as? String)?.contains(code) == true)

        let verified = try await browser.post("/auth/verify", [("email", "Ada@Example.com"), ("code", code)])
        #expect(verified.status == 303)
        #expect(verified.header("Location") == "/account?notice=verified")

        let account = try await browser.get("/account")
        #expect(account.status == 200)
        #expect(account.text.contains("Ada Lovelace"))
        #expect(account.text.contains("Ada@Example.com"))
        #expect(account.header("Cache-Control") == "no-store")

        let saved = try await browser.post(
            "/account",
            [
                ("name", "Ada King"), ("bio", "Wrote the first program."), ("avatar_url", "https://example.com/ada.png"),
                ("custom_key_0", "team"), ("custom_value_0", "analytical-engine")
            ])
        #expect(saved.status == 303)
        let afterSave = try await browser.get("/account?notice=saved")
        #expect(afterSave.text.contains("Ada King"))
        #expect(afterSave.text.contains("Wrote the first program."))
        #expect(afterSave.text.contains("analytical-engine"))

        let signedOut = try await browser.post("/auth/sign-out", [])
        #expect(signedOut.status == 303)
        let locked = try await browser.get("/account", follow: false)
        #expect(locked.status == 303)
        #expect(locked.header("Location")?.hasPrefix("/auth/sign-in") == true)

        _ = try await browser.get("/auth/sign-in")
        let signIn = try await browser.post(
            "/auth/sign-in", [("email", "ada@EXAMPLE.com"), ("password", "correct horse battery")])
        #expect(signIn.status == 303)
        #expect(signIn.header("Location") == "/account")

        try await gatehouse.restart()
        let fresh = gatehouse.browser()
        _ = try await fresh.get("/auth/sign-in")
        let again = try await fresh.post(
            "/auth/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")],
            follow: true)
        #expect(again.status == 200)
        #expect(again.text.contains("Ada King"))
        #expect(again.text.contains("analytical-engine"))
        await gatehouse.stop()
    }

    @Test func removingACustomFieldAndClearingBio() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let signUp = try await browser.post(
            "/auth/sign-up", [("email", "grace@example.com"), ("password", "hopper-1906"), ("name", "")])
        #expect(signUp.header("Location") == "/account?notice=welcome")
        _ = try await browser.get("/account")
        _ = try await browser.post(
            "/account",
            [
                ("name", "Grace"), ("bio", "Compilers"), ("avatar_url", ""),
                ("custom_key_0", "rank"), ("custom_value_0", "Rear Admiral"),
                ("custom_key_1", "ship"), ("custom_value_1", "USS Hopper")
            ])
        _ = try await browser.get("/account")
        // Clear the bio, clear one custom value: both keys go away, the other stays.
        _ = try await browser.post(
            "/account",
            [
                ("name", "Grace"), ("bio", ""), ("avatar_url", ""),
                ("custom_key_0", "rank"), ("custom_value_0", ""),
                ("custom_key_1", "ship"), ("custom_value_1", "USS Hopper")
            ])
        let page = try await browser.get("/account")
        #expect(!page.text.contains("Compilers"))
        #expect(!page.text.contains("Rear Admiral"))
        #expect(page.text.contains("USS Hopper"))
        await gatehouse.stop()
    }

    @Test func badProfileInputKeepsWhatWasTyped() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", "kay@example.com"), ("password", "smalltalk80"), ("name", "Alan")])
        _ = try await browser.get("/account")
        let response = try await browser.post(
            "/account",
            [
                ("name", "Alan Kay"), ("bio", "Dynabook"), ("avatar_url", "javascript:alert(1)"),
                ("custom_key_0", ""), ("custom_value_0", "orphan value")
            ])
        #expect(response.status == 422)
        #expect(response.text.contains("value=\"Alan Kay\""))
        #expect(response.text.contains("Dynabook"))
        #expect(response.text.contains("Give this value a key."))
        let page = try await browser.get("/account")
        #expect(!page.text.contains("Dynabook"), "nothing was saved")
        await gatehouse.stop()
    }
}
