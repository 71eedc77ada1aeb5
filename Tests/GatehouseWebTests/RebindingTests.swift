import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 1: a page on a name that rebinds to 127.0.0.1 is same-origin with Gatehouse unless
/// the server refuses hosts it does not know. These are the attack's requests, as its page makes them.
@Suite(.stopsWhatItStarts) struct RebindingTests {
    @Test func aRebindingPageCannotReadTheMailboxOrSubmitACode() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", "victim@example.com"), ("password", "quiet-otter-123")])
        let client = HTTPTestClient(port: gatehouse.port)

        let mailbox = try await client.request(
            "GET", "/_/api/mailbox?to=victim@example.com", headers: [("Host", "rebind.evil.example")])
        #expect(mailbox.status == 421)
        #expect(!mailbox.text.contains("victim@example.com"))

        let code = try await client.request(
            "POST", "/auth/verify",
            headers: [("Host", "rebind.evil.example"), ("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("email=victim%40example.com&code=123456".utf8))
        #expect(code.status == 421)
        #expect(code.header("Set-Cookie") == nil)

        // The same mailbox read through the loopback address still works.
        let local = try await client.request("GET", "/_/api/mailbox?to=victim@example.com")
        #expect(local.status == 200 && local.text.contains("victim@example.com"))
        await gatehouse.stop()
    }
}
