import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 10: guest streams hold bounded memory. Measures this process (the server runs in
/// it), so it runs alone (`scripts/swift-suites`).
@Suite(.stopsWhatItStarts) struct RealtimeMemoryAttackTests {
    /// Guest streams each subscribed to as much as PocketBase's limits and one 1 MiB body allow
    /// held ~2 MiB each; within the topic budget each holds a bounded amount.
    @Test func guestStreamsHoldBoundedMemory() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let before = try ProcessMemory.residentMiB()
        var streams: [TestEventStream] = []
        for index in 0..<64 {
            let source = "127.0.5.\(2 + index / 16)"
            let stream = try await HTTPTestClient(port: gatehouse.port, source: source).openEventStream("/api/realtime")
            let id = try #require(try await stream.next()["id"])
            streams.append(stream)
            // 1,000 topics of 1,000 characters: the most one request body (1 MiB) carries.
            let answer = try await RealtimeAttack.subscribe(
                gatehouse, id, RealtimeAttack.topics(1000, length: 1000), source: source)
            if answer.status == 400 {
                RealtimeAttack.expectPocketBaseRefusal(answer, status: 400)
                let allowed = RealtimeAttack.topics(600, length: 100)
                #expect(try await RealtimeAttack.subscribe(gatehouse, id, allowed, source: source).status == 204)
            } else {
                #expect(answer.status == 204)
            }
        }
        let grown = try ProcessMemory.residentMiB() - before
        #expect(grown < 32, "64 guest streams grew resident memory by \(Int(grown)) MiB")
        for stream in streams { stream.hangUp() }
        await gatehouse.stop()
    }
}
