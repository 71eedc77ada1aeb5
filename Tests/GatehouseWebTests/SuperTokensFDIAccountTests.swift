import Foundation
import HTTPTestClient
import TestScope
import Testing

/// An account made through the FDI is the account every way in knows, its sessions are the
/// person's sessions, and its password tries take the same budgets.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIAccountTests {
    static let password = "Correct-horse-battery-9"

    /// Signed up through the FDI, the person signs in on the pages with the same password, sees
    /// the app's session among theirs, and "sign out everywhere" ends it: the app's next call is 401.
    @Test func theFDIAccountAndSessionAreThePersonsOwn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "ivy@example.com", Self.password).status == 200)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-in")
        let signedIn = try await browser.post("/auth/sign-in", [("email", "ivy@example.com"), ("password", Self.password)])
        #expect(signedIn.status == 303 && signedIn.header("Location") == "/account")
        let sessions = try await browser.get("/account/sessions")
        #expect(sessions.text.components(separatedBy: "data-session=").count == 3, "the page's session and the app's")
        _ = try await browser.post("/account/sessions/sign-out-all", [])
        let after = try await app.call("GET", "/auth/user/email/verify")
        #expect(after.status == 401 && after.json["message"] as? String == "unauthorised", "\(after.json)")
        #expect(try await app.refresh().status == 401)
    }

    /// Wrong passwords through the FDI meet the (account, source) back-off every way in shares:
    /// soon refused with 429 and a wait, the right password too until the wait is over.
    @Test func wrongPasswordsThroughTheFDIAreThrottled() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        gatehouse.clock.freeze()
        let app = FDIScript(gatehouse)
        #expect(try await app.emailPassword("signup", "jo@example.com", Self.password).status == 200)
        var throttled: (status: Int, json: [String: Any])?
        for attempt in 1...31 {
            let answer = try await app.emailPassword("signin", "jo@example.com", "wrong-password-\(attempt)")
            if answer.status == 429 {
                throttled = answer
                break
            }
            #expect(answer.json["status"] as? String == "WRONG_CREDENTIALS_ERROR")
        }
        let refused = try #require(throttled, "31 wrong passwords in a row were all compared")
        #expect((refused.json["message"] as? String)?.contains("try again") == true)
        #expect(try await app.emailPassword("signin", "jo@example.com", Self.password).status == 429)
    }
}
