import AuthCore
import Foundation
import HTTPTestClient
import Store
import Testing

/// Webhooks as an app receives them from the real server: each act's event, signed as the
/// Standard Webhooks spec says, in order per account, retried until the receiver answers, never
/// following a redirect, signed with both secrets while a rotation overlaps.
@Suite(.stopsWhatItStarts) struct WebhookDeliveryTests {
    static let password = "correct horse battery"

    /// Adds an endpoint through the admin API; answers its JSON (with `id` and `secret`).
    static func addEndpoint(
        _ gatehouse: TestGatehouse, token: String, _ body: [String: Any]
    ) async throws -> (status: Int, json: [String: Any]) {
        let response = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/_/api/webhooks", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
        return (response.status, response.json)
    }

    static func admin(
        _ gatehouse: TestGatehouse, token: String, _ method: String, _ path: String, _ body: [String: Any]? = nil
    ) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            method, path, headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? [])
    }

    /// The endpoint's deliveries once none is pending: the worker records a try just after its
    /// answer reached the receiver.
    static func settledDeliveries(_ gatehouse: TestGatehouse, token: String, endpoint id: String) async throws
        -> [[String: Any]]
    {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let deliveries = try await admin(gatehouse, token: token, "GET", "/_/api/webhooks/\(id)/deliveries")
            let items = try #require(deliveries.json["items"] as? [[String: Any]])
            if items.allSatisfy({ $0["state"] as? String != "pending" }) || Date() >= deadline { return items }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func actsArriveSignedInOrderWithTheAccountWayInAndActor() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        let added = try await Self.addEndpoint(gatehouse, token: token, ["url": receiver.url])
        #expect(added.status == 201)
        let secret = try #require(added.json["secret"] as? String)
        #expect(secret.hasPrefix("whsec_"))

        let signUp = try await gatehouse.postJSON("/api/auth/users", ["email": "ada@example.com", "password": Self.password])
        #expect(signUp.status == 200)
        let signIn = try await gatehouse.postJSON("/api/auth/sessions", ["email": "ada@example.com", "password": Self.password])
        #expect(signIn.status == 200)
        let wrong = try await gatehouse.postJSON("/api/auth/sessions", ["email": "ada@example.com", "password": "nope nope nope"])
        #expect(wrong.status == 401)

        // InsForge's sign-up answers with a session: it is one, as the sign-in's is.
        let received = try await receiver.waitFor(4)
        #expect(received.map(\.type) == ["user.created", "session.created", "session.created", "sign_in.failed"])
        #expect(received.allSatisfy { WebhookReceiver.verifies($0, secret: secret) })
        #expect(Set(received.compactMap(\.id)).count == 4)
        let created = received[0]
        let user = try #require(created.data["user"] as? [String: Any])
        #expect(user["email"] as? String == "ada@example.com" && user["emailVerified"] as? Bool == true)
        #expect(user["tags"] as? [String] == [] && user["id"] as? String == created.data["actor"] as? String)
        #expect(created.data["wayIn"] as? String == "insforge-api")
        #expect(created.json["timestamp"] is String && created.headers["webhook-timestamp"] != nil)
    }

    @Test func aDownReceiverGetsTheEventOnARetryWithTheSameID() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver(statuses: [503, 500])
        let token = try await gatehouse.adminToken()
        let endpoint = try await Self.addEndpoint(gatehouse, token: token, ["url": receiver.url, "events": ["user.created"]])
        let id = try #require(endpoint.json["id"] as? String)
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "bob@example.com", "password": Self.password])

        let received = try await receiver.waitFor(3)
        #expect(Set(received.compactMap(\.id)).count == 1)
        #expect(Set(received.map(\.body)).count == 1)
        let items = try await Self.settledDeliveries(gatehouse, token: token, endpoint: id)
        #expect(items.count == 1 && items.first?["state"] as? String == "delivered" && items.first?["attempts"] as? Int == 3)
        let deliveryID = try #require(items.first?["id"] as? Int)
        let attempts = try await Self.admin(
            gatehouse, token: token, "GET", "/_/api/webhooks/\(id)/deliveries/\(deliveryID)/attempts")
        let statuses = (attempts.json["items"] as? [[String: Any]])?.compactMap { $0["status"] as? Int }
        #expect(statuses == [503, 500, 200])
    }

    @Test func aReceiverThatNeverAnswersMarksTheEndpointFailing() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver(statuses: [500, 500, 500, 500])
        let token = try await gatehouse.adminToken()
        let endpoint = try await Self.addEndpoint(gatehouse, token: token, ["url": receiver.url, "events": ["user.created"]])
        let id = try #require(endpoint.json["id"] as? String)
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "carl@example.com", "password": Self.password])
        _ = try await receiver.waitFor(3)
        try await Task.sleep(for: .milliseconds(200))
        let shown = try await Self.admin(gatehouse, token: token, "GET", "/_/api/webhooks/\(id)")
        #expect(shown.json["failingSince"] is String)
        #expect(receiver.received.count == 3)
    }

    @Test func aRedirectIsAnAnswerNotAPlaceToGo() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        _ = try await Self.addEndpoint(
            gatehouse, token: token, ["url": "http://127.0.0.1:\(receiver.peer.port)/moved", "events": ["user.created"]])
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "dee@example.com", "password": Self.password])
        _ = try await receiver.waitFor(3)
        try await Task.sleep(for: .milliseconds(200))
        // Every try went to /moved (3 of them, the policy's two retries), none followed it to /hook.
        #expect(receiver.received.count == 3)
    }

    @Test func aRotatedSecretSignsBesideTheOldOneAndSvixNamesComeWhenAsked() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        let endpoint = try await Self.addEndpoint(
            gatehouse, token: token, ["url": receiver.url, "events": ["user.created"], "svixHeaders": true])
        let id = try #require(endpoint.json["id"] as? String)
        let old = try #require(endpoint.json["secret"] as? String)
        let rotated = try await Self.admin(gatehouse, token: token, "POST", "/_/api/webhooks/\(id)/rotate-secret")
        let new = try #require(rotated.json["secret"] as? String)
        #expect(new != old && rotated.json["previousSecretUntil"] is String)
        _ = try await gatehouse.postJSON("/api/auth/users", ["email": "eve@example.com", "password": Self.password])
        let request = try #require(try await receiver.waitFor(1).first)
        #expect(WebhookReceiver.verifies(request, secret: old) && WebhookReceiver.verifies(request, secret: new))
        #expect(request.headers["webhook-signature"]?.split(separator: " ").count == 2)
        #expect(request.headers["svix-id"] == request.id && WebhookReceiver.verifies(request, secret: new, prefix: "svix-"))
    }

    @Test func endpointsNameLoopbackHostsAndKnownTypesOnly() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let remote = try await Self.addEndpoint(gatehouse, token: token, ["url": "http://example.com/hook"])
        #expect(remote.status == 400 && (remote.json["message"] as? String)?.contains("--webhook-any-host") == true)
        let badType = try await Self.addEndpoint(
            gatehouse, token: token, ["url": "http://localhost:9/x", "events": ["user.eaten"]])
        #expect(badType.status == 400 && badType.json["error"] as? String == "BAD_REQUEST")
        let badScheme = try await Self.addEndpoint(gatehouse, token: token, ["url": "file:///etc/passwd"])
        #expect(badScheme.status == 400)
        let badHeader = try await Self.addEndpoint(
            gatehouse, token: token, ["url": "http://[::1]:9/x", "headers": ["webhook-signature": "v1,forged"]])
        #expect(badHeader.status == 400)
        let list = try await Self.admin(gatehouse, token: token, "GET", "/_/api/webhooks")
        #expect((list.json["items"] as? [Any])?.isEmpty == true)
        let missing = try await Self.admin(gatehouse, token: token, "PATCH", "/_/api/webhooks/ep_nothing", ["enabled": false])
        #expect(missing.status == 404)
    }

    @Test func aChangeWhoseActDiedBeforeItsAuditRowIsSentAfterARestart() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let receiver = try WebhookReceiver()
        let token = try await gatehouse.adminToken()
        _ = try await Self.addEndpoint(gatehouse, token: token, ["url": receiver.url])
        // The account's row commits and the process dies: no audit row, no nudge, no worker left.
        try await gatehouse.restart {
            let now = Date()
            _ = try await gatehouse.database.insertUser(
                UserRecord(
                    id: UserID("crashed1"), email: "fay@example.com", passwordHash: nil, verified: false,
                    profile: Profile(), createdAt: now, updatedAt: now), verificationToken: nil)
            try await Task.sleep(for: .milliseconds(400))
            #expect(receiver.received.isEmpty)
        }
        let received = try await receiver.waitFor(1)
        #expect(received.first?.type == "user.created" && received.first?.data["wayIn"] == nil)
        #expect((received.first?.data["user"] as? [String: Any])?["id"] as? String == "crashed1")
    }
}
