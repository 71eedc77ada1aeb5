import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 10: PocketBase realtime (`/api/realtime`) within per-client budgets. Each test
/// performs its attack over real sockets against a real server, as many streams as it needs from
/// loopback addresses of their own; one at a time, as one of them times an event.
@Suite(.stopsWhatItStarts, .serialized) struct RealtimeBudgetAttackTests {
    /// Many streams × many never-matching filtered topics, then profile edits: another user's event
    /// still arrives promptly (it took 8.3 s with 128 streams × 1,000 topics and 50 edits).
    @Test func manyTopicsOnManyStreamsDoNotDelayAnotherUsersEvent() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let peer = try await RecordEventsPeer.start(gatehouse, stop: { await gatehouse.stop() })
        let attacker = try await peer.createUser("attacker@example.com")
        let victim = try await peer.createUser("victim@example.com")
        let victimToken = try await peer.token("victim@example.com")
        // Patient enough to measure how long the event took before the fix.
        let victimStream = try await HTTPTestClient(port: gatehouse.port, timeout: .seconds(300)).openEventStream("/api/realtime")
        let victimEvents = (stream: victimStream, id: try #require(try await victimStream.next()["id"]))
        try await peer.subscribe(victimEvents, ["users/\(victim)"], token: victimToken)

        // 128 guest streams from 8 addresses, each asking for 1,000 filtered topics of records that
        // never change; past the budgets, the most each is allowed.
        var streams: [TestEventStream] = []
        var refused = 0
        for index in 0..<128 {
            let source = "127.0.3.\(2 + index / 16)"
            let stream = try await HTTPTestClient(port: gatehouse.port, source: source).openEventStream("/api/realtime")
            let id = try #require(try await stream.next()["id"])
            streams.append(stream)
            let options = "?options=" + RecordEventsPeer.encoded(#"{"query":{"filter":"name = 'never'"}}"#)
            let full = (0..<1000).map { _ in "users/" + RealtimeAttack.randomID() + options }
            let answer = try await RealtimeAttack.subscribe(gatehouse, id, full, source: source)
            guard answer.status != 204 else { continue }
            RealtimeAttack.expectPocketBaseRefusal(answer, status: 400)
            refused += 1
            let allowed = full.prefix(16) + (0..<240).map { _ in "users/" + RealtimeAttack.randomID() }
            #expect(try await RealtimeAttack.subscribe(gatehouse, id, Array(allowed), source: source).status == 204)
        }
        for edit in 0..<50 { try await peer.update(attacker, ["name": "Edit \(edit)"]) }

        let start = ContinuousClock.now
        try await peer.update(victim, ["name": "Victim Two"])
        let event = try await victimEvents.stream.next()
        let waited = ContinuousClock.now - start
        #expect((try RecordEventsPeer.data(event)["record"] as? [String: Any])?["name"] as? String == "Victim Two")
        #expect(waited < .seconds(1), "another user's event waited \(waited) behind the topics (\(refused) refused)")
        for stream in streams { stream.hangUp() }
        victimEvents.stream.hangUp()
        await gatehouse.stop()
    }

    /// A signed-in caller's clients share one budget of filters and of clients.
    @Test func oneAuthGetsABoundedNumberOfFiltersAndClients() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let peer = try await RecordEventsPeer.start(gatehouse, stop: { await gatehouse.stop() })
        _ = try await peer.createUser("many@example.com")
        let token = try await peer.token("many@example.com")
        var streams: [TestEventStream] = []
        var answers: [Int] = []
        for index in 0..<20 {
            let source = "127.0.4.\(2 + index / 8)"
            let stream = try await HTTPTestClient(port: gatehouse.port, source: source).openEventStream("/api/realtime")
            let id = try #require(try await stream.next()["id"])
            streams.append(stream)
            // Each client asks for 16 filters of its own; the auth's 32 are spent by the second.
            let topics = (0..<16).map {
                "users/*?options=" + RecordEventsPeer.encoded(#"{"query":{"filter":"name = 'c\#(index)-\#($0)'"}}"#)
            }
            var answer = try await RealtimeAttack.subscribe(gatehouse, id, topics, source: source, token: token)
            if answer.status == 400 {
                RealtimeAttack.expectPocketBaseRefusal(answer, status: 400)
                answer = try await RealtimeAttack.subscribe(gatehouse, id, ["users/*"], source: source, token: token)
            }
            if answer.status == 429 { RealtimeAttack.expectPocketBaseRefusal(answer, status: 429) }
            answers.append(answer.status)
        }
        #expect(answers == Array(repeating: 204, count: 16) + Array(repeating: 429, count: 4), "\(answers)")
        for stream in streams { stream.hangUp() }
        await gatehouse.stop()
    }

    /// 64 addresses × 16 streams each filled every stream place; a newcomer from elsewhere got 503.
    @Test func streamsFromSixtyFourAddressesDoNotLockANewcomerOut() async throws {
        try await expectRealtimeNewcomerConnects(besides: "/api/realtime", from: "127.0.6", newcomer: "127.0.7.2")
    }

    /// Issue 42, item 6: the mailbox's live feeds and realtime shared the server's 1,024 stream
    /// places, so 64 addresses × 16 open mailbox pages made realtime answer 503.
    @Test func openMailboxFeedsLeaveRealtimeItsPlaces() async throws {
        try await expectRealtimeNewcomerConnects(besides: "/_/mailbox/events", from: "127.0.9", newcomer: "127.0.10.2")
    }

    /// Opens 16 streams of `path` from each of 64 addresses of the `/24` `subnet`, then expects a
    /// realtime client from `newcomer` to be let in.
    private func expectRealtimeNewcomerConnects(besides path: String, from subnet: String, newcomer: String) async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        var streams: [TestEventStream] = []
        for address in 0..<64 {
            for _ in 0..<16 {
                let stream = try await HTTPTestClient(port: gatehouse.port, source: "\(subnet).\(2 + address)").openEventStream(
                    path)
                #expect(stream.status == 200)
                streams.append(stream)
            }
        }
        let late = try await HTTPTestClient(port: gatehouse.port, source: newcomer).openEventStream("/api/realtime")
        #expect(late.status == 200)
        if late.status == 200 { #expect(try await late.next()["event"] == "PB_CONNECT") }
        late.hangUp()
        for stream in streams { stream.hangUp() }
        await gatehouse.stop()
    }

    /// An address's 16 streams whose clients hung up held their places until the next keep-alive
    /// write (15 s): a reload got 429 meanwhile.
    @Test func aStreamWhoseClientLeftFreesItsPlaceAtOnce() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let client = HTTPTestClient(port: gatehouse.port, source: "127.0.8.2")
        var streams: [TestEventStream] = []
        for _ in 0..<16 {
            let stream = try await client.openEventStream("/api/realtime")
            _ = try await stream.next()
            streams.append(stream)
        }
        for stream in streams { stream.hangUp() }
        let reload = try await client.openEventStream("/api/realtime")
        #expect(reload.status == 200)
        if reload.status == 200 { #expect(try await reload.next()["event"] == "PB_CONNECT") }
        reload.hangUp()
        await gatehouse.stop()
    }
}

/// What the realtime attacks share.
enum RealtimeAttack {
    /// Sets `clientID`'s subscriptions from `source` and returns the answer, whatever it is.
    static func subscribe(
        _ gatehouse: TestGatehouse, _ clientID: String, _ topics: [String], source: String, token: String? = nil
    ) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["clientId": clientID, "subscriptions": topics])
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", token)) }
        return try await HTTPTestClient(port: gatehouse.port, source: source).request(
            "POST", "/api/realtime", headers: headers, body: Array(body))
    }

    /// A refusal in PocketBase's envelope.
    static func expectPocketBaseRefusal(
        _ answer: TestResponse, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == status, "\(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.json["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(answer.json["data"] is [String: Any] && answer.json["message"] is String, sourceLocation: sourceLocation)
    }

    /// `count` topics of `length` characters on records that do not exist, their options' query
    /// padded with one long value (JSON left unencoded, as PocketBase reads it too: the most
    /// options for the fewest characters).
    static func topics(_ count: Int, length: Int) -> [String] {
        (0..<count).map { _ in
            let start = "users/" + randomID() + #"?options={"query":{"p":""#
            return start + String(repeating: "x", count: length - start.count - 3) + #""}}"#
        }
    }

    /// A 15-character id of no record.
    static func randomID() -> String {
        String((0..<15).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }
}
