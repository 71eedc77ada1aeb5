import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22, item 10: guest streams hold bounded memory. Measures this process (the server runs in
/// it), so it runs alone (`scripts/swift-suites`).
@Suite(.stopsWhatItStarts) struct RealtimeMemoryAttackTests {
    /// Guest streams each subscribed to as much as PocketBase's limits and one 1 MiB body allow
    /// held 2.3 MiB each (64 of them grew the process by 145 MiB); within the budgets each holds
    /// 120–140 KiB, its stream included (64 grew it by 7.7–8.6 MiB).
    @Test func guestStreamsHoldBoundedMemory() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        // One stream first, so what the first requests of their kind leave (allocator arenas,
        // buffers) is not counted against the streams.
        var streams = [try await subscribeAsMuchAsAllowed(gatehouse, from: "127.0.5.1")]
        let before = try ProcessMemory.residentMiB()
        for index in 0..<64 {
            streams.append(try await subscribeAsMuchAsAllowed(gatehouse, from: "127.0.5.\(2 + index / 16)"))
        }
        let grown = try ProcessMemory.residentMiB() - before
        #expect(grown < 16, "64 guest streams grew resident memory by \(Int(grown)) MiB")
        for stream in streams { stream.hangUp() }
        await gatehouse.stop()
    }

    /// A guest stream from `source` that asked for fewer, long topics, then for 1,000 topics of
    /// 1,000 characters (the most one 1 MiB request body carries), and when refused, holds the
    /// costliest subscriptions the budgets allow: the most topics, each with options.
    private func subscribeAsMuchAsAllowed(_ gatehouse: TestGatehouse, from source: String) async throws
        -> TestEventStream
    {
        let stream = try await HTTPTestClient(port: gatehouse.port, source: source).openEventStream("/api/realtime")
        let id = try #require(try await stream.next()["id"])
        var refused = 0
        for topics in [RealtimeAttack.topics(256, length: 1000), RealtimeAttack.topics(1000, length: 1000)] {
            let answer = try await RealtimeAttack.subscribe(gatehouse, id, topics, source: source)
            guard answer.status != 204 else { continue }
            RealtimeAttack.expectPocketBaseRefusal(answer, status: 400)
            refused += 1
        }
        if refused > 0 {
            let allowed = RealtimeAttack.topics(256, length: 64)
            #expect(try await RealtimeAttack.subscribe(gatehouse, id, allowed, source: source).status == 204)
        }
        return stream
    }
}
