import Foundation
import HTTPTestClient
import PocketBaseTestSupport
import TestScope
import Testing

/// PocketBase realtime record subscriptions (`users/*`, `users/ID`, `?options=`): the same
/// assertions against Gatehouse and the real PocketBase binary. An event that must not arrive is
/// shown not to by the next event on that stream, which is one made after it (a stream delivers
/// in order), never by waiting.
@Suite(.stopsWhatItStarts) struct PocketBaseRecordEventsTests {
    @Test(arguments: ["gatehouse", "pocketbase"])
    func recordEventsReachOnlyWhoMayViewTheRecord(server: String) async throws {
        let peer = try await RecordEventsPeer.start(server)
        let alice = try await peer.createUser("alice@example.com")
        let bob = try await peer.createUser("bob@example.com")
        let aliceToken = try await peer.token("alice@example.com")
        let bobToken = try await peer.token("bob@example.com")

        // Alice follows the collection and her own record (that one cut to two fields).
        let aliceEvents = try await peer.stream()
        let fieldsTopic = "users/\(alice)?options=" + RecordEventsPeer.encoded(#"{"query":{"fields":"id,name"}}"#)
        try await peer.subscribe(aliceEvents, ["users/*", fieldsTopic], token: aliceToken)
        // Bob follows the collection and, by id, Alice's record, which he may not view.
        let bobEvents = try await peer.stream()
        try await peer.subscribe(bobEvents, ["users/*", "users/\(alice)"], token: bobToken)

        try await peer.update(bob, ["name": "Bob Two"])
        try await peer.update(alice, ["name": "Alice Two"])
        // Alice's next events are about her own record: Bob's change never reached her.
        let first = try await events(aliceEvents.stream, count: 2)
        let whole = try #require(first["users/*"])
        #expect(whole.id == aliceEvents.id)
        #expect(whole.data["action"] as? String == "update")
        let record = try #require(whole.data["record"] as? [String: Any])
        #expect(record["id"] as? String == alice && record["name"] as? String == "Alice Two")
        #expect(record["email"] as? String == "alice@example.com", "the owner sees her email")
        #expect(record["collectionName"] as? String == "users" && record["collectionId"] as? String == "_pb_users_auth_")
        let cut = try #require(first[fieldsTopic]?.data["record"] as? [String: Any])
        #expect(Set(cut.keys) == ["id", "name"] && cut["name"] as? String == "Alice Two")
        // Bob's next event is his own record's: Alice's change reached neither of his topics.
        let bobFirst = try await bobEvents.stream.next()
        #expect(bobFirst["event"] == "users/*")
        #expect((try RecordEventsPeer.data(bobFirst)["record"] as? [String: Any])?["id"] as? String == bob)

        // Unsubscribing from `users/*` stops its events; the record topic still gets them.
        try await peer.subscribe(aliceEvents, ["users/\(alice)"], token: aliceToken)
        try await peer.update(alice, ["name": "Alice Three"])
        try await peer.update(alice, ["name": "Alice Four"])
        for name in ["Alice Three", "Alice Four"] {
            let event = try await aliceEvents.stream.next()
            #expect(event["event"] == "users/\(alice)")
            #expect((try RecordEventsPeer.data(event)["record"] as? [String: Any])?["name"] as? String == name)
        }

        // With no subscriptions nothing arrives; a change made before subscribing again is not sent.
        try await peer.subscribe(aliceEvents, [], token: aliceToken)
        try await peer.update(alice, ["name": "Alice Unseen"])
        try await peer.subscribe(aliceEvents, ["users/\(alice)"], token: aliceToken)
        try await peer.update(alice, ["name": "Alice Five"])
        let resumed = try await aliceEvents.stream.next()
        #expect((try RecordEventsPeer.data(resumed)["record"] as? [String: Any])?["name"] as? String == "Alice Five")

        // A `filter` option narrows the events to matching records.
        let filtered = "users/*?options=" + RecordEventsPeer.encoded(#"{"query":{"filter":"name = 'Match'"}}"#)
        try await peer.subscribe(aliceEvents, [filtered], token: aliceToken)
        try await peer.update(alice, ["name": "No match"])
        try await peer.update(alice, ["name": "Match"])
        let matched = try await aliceEvents.stream.next()
        #expect(matched["event"] == filtered)
        #expect((try RecordEventsPeer.data(matched)["record"] as? [String: Any])?["name"] as? String == "Match")

        // A deleted record sends `delete` with the record as it was, to its owner.
        try await peer.subscribe(aliceEvents, ["users/\(alice)"], token: aliceToken)
        try await peer.delete(alice)
        let deleted = try await aliceEvents.stream.next()
        #expect(deleted["event"] == "users/\(alice)")
        let deletedData = try RecordEventsPeer.data(deleted)
        #expect(deletedData["action"] as? String == "delete")
        #expect((deletedData["record"] as? [String: Any])?["name"] as? String == "Match")
        // …and not to Bob, whose next event is again his own record's.
        try await peer.update(bob, ["name": "Bob Three"])
        let bobNext = try await bobEvents.stream.next()
        #expect((try RecordEventsPeer.data(bobNext)["record"] as? [String: Any])?["name"] as? String == "Bob Three")
        aliceEvents.stream.hangUp()
        bobEvents.stream.hangUp()
        await peer.stop()
    }

    @Test(arguments: ["gatehouse", "pocketbase"])
    func superusersSeeEveryRecordAndGuestsNone(server: String) async throws {
        let peer = try await RecordEventsPeer.start(server)
        let staff = try await peer.stream()
        try await peer.subscribe(staff, ["users/*"], token: peer.superuserToken)
        let guest = try await peer.stream()
        try await peer.subscribe(guest, ["users/*", "users"], token: nil)

        let carol = try await peer.createUser("carol@example.com")
        let created = try await staff.stream.next()
        #expect(created["event"] == "users/*")
        let data = try RecordEventsPeer.data(created)
        #expect(data["action"] as? String == "create")
        #expect((data["record"] as? [String: Any])?["id"] as? String == carol)
        #expect((data["record"] as? [String: Any])?["email"] as? String == "carol@example.com")
        try await peer.delete(carol)
        #expect(try RecordEventsPeer.data(try await staff.stream.next())["action"] as? String == "delete")

        // The guest got none of it: once subscribed to `@oauth2` too, its next message is that one.
        try await peer.subscribe(guest, ["users/*", "@oauth2"], token: nil)
        let redirect = try await HTTPTestClient(port: peer.port).request(
            "GET", "/api/oauth2-redirect?state=\(guest.id)&code=abc")
        #expect((200..<400).contains(redirect.status))
        #expect(try await guest.stream.next()["event"] == "@oauth2")
        staff.stream.hangUp()
        guest.stream.hangUp()
        await peer.stop()
    }
}

/// What only Gatehouse has: accounts changed through any of its front-ends reach PocketBase
/// realtime subscribers, and a subscriber's token is checked again at each delivery.
@Suite(.stopsWhatItStarts) struct PocketBaseRecordEventsFrontEndTests {
    @Test func changesFromEveryFrontEndReachSubscribers() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let peer = try await RecordEventsPeer.start(gatehouse, stop: { await gatehouse.stop() })
        let staff = try await peer.stream()
        try await peer.subscribe(staff, ["users/*"], token: peer.superuserToken)
        let admin = try await gatehouse.adminToken()
        func adminCall(_ method: String, _ path: String, _ json: [String: Any]? = nil) async throws -> TestResponse {
            var headers = [("Authorization", "Bearer \(admin)")]
            var body: [UInt8] = []
            if let json {
                headers.append(("Content-Type", "application/json"))
                body = Array(try JSONSerialization.data(withJSONObject: json))
            }
            return try await HTTPTestClient(port: gatehouse.port).request(method, path, headers: headers, body: body)
        }
        func next(_ action: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
            let event = try await staff.stream.next()
            let data = try RecordEventsPeer.data(event)
            #expect(event["event"] == "users/*" && data["action"] as? String == action, sourceLocation: sourceLocation)
            return try #require(data["record"] as? [String: Any], sourceLocation: sourceLocation)
        }

        // The account pages' sign-up.
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let signUp = try await browser.post(
            "/auth/sign-up", [("email", "page@example.com"), ("password", "quiet-otter-123"), ("name", "From Page")])
        #expect(signUp.status == 303)
        let fromPage = try await next("create")
        #expect(fromPage["email"] as? String == "page@example.com" && fromPage["name"] as? String == "From Page")
        // InsForge's sign-up.
        let insForge = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/users", headers: [("Content-Type", "application/json")],
            body: Array(#"{"email":"insforge@example.com","password":"quiet-otter-123"}"#.utf8))
        #expect(insForge.status == 200, "\(insForge.text)")
        #expect(try await next("create")["email"] as? String == "insforge@example.com")
        // The admin JSON API's update and delete.
        let id = try #require(fromPage["id"] as? String)
        #expect(try await adminCall("PATCH", "/_/api/users/\(id)", ["profile": ["name": "Renamed"]]).status == 200)
        #expect(try await next("update")["name"] as? String == "Renamed")
        // The test-user seed (a bulk insert) and deleting the batch by its tag.
        let seeded = try await adminCall(
            "POST", "/_/api/users/seed",
            ["count": 2, "pattern": "seed{n}@example.com", "password": "quiet-otter-123", "tag": "batch"])
        #expect(seeded.status == 201, "\(seeded.text)")
        let seededEmails = [try await next("create")["email"] as? String, try await next("create")["email"] as? String]
        #expect(Set(seededEmails.compactMap { $0 }) == ["seed1@example.com", "seed2@example.com"])
        #expect(try await adminCall("DELETE", "/_/api/users?tag=batch").status == 200)
        let deletedEmails = [try await next("delete")["email"] as? String, try await next("delete")["email"] as? String]
        #expect(Set(deletedEmails.compactMap { $0 }) == ["seed1@example.com", "seed2@example.com"])
        #expect(try await adminCall("DELETE", "/_/api/users/\(id)").status == 204)
        #expect(try await next("delete")["email"] as? String == "page@example.com")
        staff.stream.hangUp()
        await gatehouse.stop()
    }

    @Test func aRevokedTokenStopsEventsAndBadOptionsAreNoError() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let peer = try await RecordEventsPeer.start(gatehouse, stop: { await gatehouse.stop() })
        let dana = try await peer.createUser("dana@example.com")
        let danaToken = try await peer.token("dana@example.com")
        // Options that do not parse are no options; a filter that cannot be read matches nothing.
        let events = try await peer.stream()
        let topics = [
            "users/*?options=not-json", "users/*?options=%ZZ", #"users/*?options={"query":"x"}"#,
            "users/*?options=" + RecordEventsPeer.encoded(#"{"query":{"filter":"((("}}"#), "@oauth2"
        ]
        try await peer.subscribe(events, topics, token: danaToken)
        try await peer.update(dana, ["name": "Dana Two"])
        let received = [try await events.stream.next(), try await events.stream.next(), try await events.stream.next()]
        #expect(received.map { $0["event"] } == Array(topics.prefix(3)))

        // Once Dana's sessions are revoked, her token no longer shows her record.
        let admin = try await gatehouse.adminToken()
        let revoked = try await HTTPTestClient(port: gatehouse.port).request(
            "DELETE", "/_/api/users/\(dana)/sessions", headers: [("Authorization", "Bearer \(admin)")])
        #expect((200..<300).contains(revoked.status), "\(revoked.text)")
        try await peer.update(dana, ["name": "Dana Three"])
        // Her next message is the `@oauth2` one sent after that change.
        let redirect = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/api/oauth2-redirect?state=\(events.id)&code=abc")
        #expect(redirect.status == 200)
        #expect(try await events.stream.next()["event"] == "@oauth2")
        events.stream.hangUp()
        await gatehouse.stop()
    }
}

/// Proxy mode has no feed of account changes (`PocketBaseBackend` lacks `.userChanges`): record
/// subscriptions are accepted and stay silent, as the docs say.
@Suite(.stopsWhatItStarts) struct PocketBaseRecordEventsProxyTests {
    @Test func inProxyModeRecordSubscriptionsStaySilent() async throws {
        try await ProxyGatehouse.run(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            _, gatehouse in
            let peer = try await RecordEventsPeer.start(gatehouse, stop: {})
            let staff = try await peer.stream()
            try await peer.subscribe(staff, ["users/*", "@oauth2"], token: peer.superuserToken)
            _ = try await peer.createUser("proxied@example.com")
            // The account was made in PocketBase; the next message is the `@oauth2` one sent after it.
            let redirect = try await HTTPTestClient(port: peer.port).request(
                "GET", "/api/oauth2-redirect?state=\(staff.id)&code=abc")
            #expect(redirect.status == 200)
            #expect(try await staff.stream.next()["event"] == "@oauth2")
            staff.stream.hangUp()
        }
    }
}

/// The next `count` events of `stream`, by event name (each event's `id` and decoded data).
private func events(_ stream: TestEventStream, count: Int) async throws -> [String: (id: String?, data: [String: Any])] {
    var result: [String: (id: String?, data: [String: Any])] = [:]
    for _ in 0..<count {
        let event = try await stream.next()
        result[event["event"] ?? ""] = (event["id"], try RecordEventsPeer.data(event))
    }
    return result
}

/// Gatehouse or the real PocketBase, driven the same way over HTTP: accounts made, changed and
/// deleted with a superuser's PocketBase-API token, realtime streams opened and subscribed.
final class RecordEventsPeer: Sendable {
    let port: Int
    let superuserToken: String
    private let stopping: @Sendable () async -> Void

    private init(port: Int, superuserToken: String, stop: @escaping @Sendable () async -> Void) {
        self.port = port
        self.superuserToken = superuserToken
        self.stopping = stop
    }

    static func start(_ server: String) async throws -> RecordEventsPeer {
        if server == "pocketbase" {
            let pocketBase = try await PocketBaseServer.start()
            return RecordEventsPeer(
                port: pocketBase.port, superuserToken: try await pocketBase.superuserToken(), stop: { await pocketBase.stop() })
        }
        let gatehouse = try await TestGatehouse(verification: .none)
        return try await start(gatehouse, stop: { await gatehouse.stop() })
    }

    /// Gatehouse (on any backend), with a superuser signed in on its PocketBase API.
    static func start(_ gatehouse: some ConsoleHarness & Sendable, stop: @escaping @Sendable () async -> Void) async throws
        -> RecordEventsPeer
    {
        try await gatehouse.createSuperuser("root@example.com", password: "superuser-password-1")
        let signIn = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/collections/_superusers/auth-with-password", headers: [("Content-Type", "application/json")],
            body: Array(#"{"identity":"root@example.com","password":"superuser-password-1"}"#.utf8))
        let token = try #require(signIn.json["token"] as? String, "\(signIn.text)")
        return RecordEventsPeer(port: gatehouse.port, superuserToken: token, stop: stop)
    }

    func stop() async { await stopping() }

    /// A verified account made by the superuser; its id.
    func createUser(_ email: String) async throws -> String {
        let created = try await call(
            "POST", "/api/collections/users/records",
            ["email": email, "password": "quiet-otter-123", "passwordConfirm": "quiet-otter-123", "verified": true])
        return try #require(created["id"] as? String)
    }

    func token(_ email: String) async throws -> String {
        let signedIn = try await call(
            "POST", "/api/collections/users/auth-with-password", ["identity": email, "password": "quiet-otter-123"], token: nil)
        return try #require(signedIn["token"] as? String)
    }

    func update(_ id: String, _ fields: [String: Any]) async throws {
        try await call("PATCH", "/api/collections/users/records/\(id)", fields)
    }

    func delete(_ id: String) async throws {
        try await call("DELETE", "/api/collections/users/records/\(id)", nil)
    }

    /// A realtime stream and its client id (from `PB_CONNECT`).
    func stream() async throws -> (stream: TestEventStream, id: String) {
        let stream = try await HTTPTestClient(port: port).openEventStream("/api/realtime")
        let connect = try await stream.next()
        return (stream, try #require(connect["id"]))
    }

    /// Sets the stream's subscriptions as the SDKs do (`POST /api/realtime`).
    func subscribe(_ client: (stream: TestEventStream, id: String), _ topics: [String], token: String?) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["clientId": client.id, "subscriptions": topics])
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", token)) }
        let response = try await HTTPTestClient(port: port).request("POST", "/api/realtime", headers: headers, body: Array(body))
        #expect(response.status == 204, "\(response.text)")
    }

    @discardableResult
    private func call(_ method: String, _ path: String, _ json: [String: Any]?, token: String? = "") async throws
        -> [String: Any]
    {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", token.isEmpty ? superuserToken : token)) }
        var body: [UInt8] = []
        if let json {
            headers.append(("Content-Type", "application/json"))
            body = Array(try JSONSerialization.data(withJSONObject: json))
        }
        let response = try await HTTPTestClient(port: port).request(method, path, headers: headers, body: body)
        #expect((200..<300).contains(response.status), "\(method) \(path): \(response.text)")
        return response.body.isEmpty ? [:] : response.json
    }

    /// An event's data as JSON.
    static func data(_ event: [String: String]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data((event["data"] ?? "").utf8)) as? [String: Any])
    }

    /// A topic's `options` value as the SDKs put it in the topic (`encodeURIComponent`).
    static func encoded(_ json: String) -> String {
        json.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.!~*'()"))) ?? json
    }
}
