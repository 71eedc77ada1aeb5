import Foundation
import HTTPTestClient
import Testing

/// A person's sessions as an app hears of them: the sign-up page that signs the new account in
/// opens a session (`session.created`), signing out ends it (`reason` `sign_out`), and a session
/// that reaches its end is reported once (`reason` `expired`) whether or not anyone presents it
/// again — noticed by the delivery worker on the server's clock, which this test moves.
@Suite(.stopsWhatItStarts) struct WebhookSessionEventTests {
    static let password = "correct horse battery"

    /// Each received event of the account at `email`: its type, way in and reason.
    static func events(of email: String, in received: [WebhookReceiver.Received]) -> [String] {
        received.filter { ($0.data["user"] as? [String: Any])?["email"] as? String == email }.map {
            [$0.type, $0.data["wayIn"] as? String, $0.data["reason"] as? String].compactMap { $0 }.joined(separator: " ")
        }
    }

    @Test func aPageSignUpOpensASessionWhoseEndIsReportedOnceWhetherSignedOutOrExpired() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        _ = try await WebhookDeliveryTests.addEndpoint(gatehouse, token: token, ["url": receiver.url])

        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let signUp = try await browser.post("/auth/sign-up", [("email", "ida@example.com"), ("password", Self.password)])
        #expect(signUp.status == 303 && signUp.header("Location") == "/account?notice=welcome")
        _ = try await receiver.waitFor(2)
        #expect(Self.events(of: "ida@example.com", in: receiver.received) == ["user.created pages", "session.created pages"])

        // A second browser signs in; the first signs out; a week later the second's session lapses.
        let other = gatehouse.browser()
        _ = try await other.get("/auth/sign-in")
        #expect(try await other.post("/auth/sign-in", [("email", "ida@example.com"), ("password", Self.password)]).status == 303)
        _ = try await browser.get("/account")
        #expect(try await browser.post("/auth/sign-out", []).status == 303)
        _ = try await receiver.waitFor(4)
        gatehouse.clock.advance(8 * 24 * 3600)
        #expect(try await other.get("/account", follow: false).status == 303)
        // Any act wakes the worker, as its timer would have at the session's end.
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "jo@example.com", "password": Self.password])
        _ = try await receiver.waitFor(7)
        gatehouse.clock.advance(24 * 3600)
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "kim@example.com", "password": Self.password])
        _ = try await receiver.waitFor(9)
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            Self.events(of: "ida@example.com", in: receiver.received) == [
                "user.created pages", "session.created pages", "session.created pages", "session.ended pages sign_out",
                "session.ended expired"
            ])
        let expired = try #require(receiver.received.first { $0.data["reason"] as? String == "expired" })
        #expect(expired.data["expiredAt"] is String && expired.data["actor"] is NSNull)
    }

    /// A test suite's `expire-now` of an account's sessions ends them as their lapsing would: the app
    /// hears one `session.ended` (`reason` `expired`, the test controls the way in); ending none
    /// (nothing was live) tells it nothing.
    @Test func expireNowOfSessionsIsReportedAsTheirEnd() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let script = try await TestControlsScript(gatehouse)
        let receiver = try WebhookReceiver()
        _ = try await WebhookDeliveryTests.addEndpoint(gatehouse, token: script.token, ["url": receiver.url])
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "lu@example.com", "password": Self.password])
        _ = try await receiver.waitFor(2)

        let ended = try await script.control("clock/expire-now", ["email": "lu@example.com", "kind": "sessions"])
        #expect(ended.status == 200 && ended.json["ended"] as? Int == 1, "\(ended.text)")
        #expect(try await script.control("clock/expire-now", ["email": "lu@example.com", "kind": "sessions"]).status == 200)
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "mo@example.com", "password": Self.password])
        _ = try await receiver.waitFor(5)
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            Self.events(of: "lu@example.com", in: receiver.received) == [
                "user.created insforge-api", "session.created insforge-api", "session.ended test-controls expired"
            ])
    }
}
