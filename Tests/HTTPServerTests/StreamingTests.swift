import Foundation
import HTTPServer
import HTTPTestClient
import Logging
import Testing

/// Streamed responses (`ResponseStream`): written as sent, freed when the client leaves, bounded per
/// address, and ended at shutdown without holding it for the grace period.
@Suite("Streaming")
struct StreamingTests {
    /// Hands each stream the responder makes to the test, and counts the ones that ended.
    final class Streams: @unchecked Sendable {
        private let lock = NSLock()
        private var made: [ResponseStream] = []
        private var ended = 0

        func make(keepAlive: Duration? = .milliseconds(50)) -> ResponseStream {
            let stream = ResponseStream(keepAlive: keepAlive)
            stream.onTermination { [self] in
                lock.lock()
                ended += 1
                lock.unlock()
            }
            lock.lock()
            made.append(stream)
            lock.unlock()
            return stream
        }

        var all: [ResponseStream] {
            lock.lock()
            defer { lock.unlock() }
            return made
        }

        var endedCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return ended
        }

        /// Waits (bounded) until `count` streams ended; returns how many did.
        func waitForEnded(_ count: Int) async -> Int {
            for _ in 0..<1000 where endedCount < count {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return endedCount
        }
    }

    static func eventStream(_ streams: Streams) -> Responder {
        { _ in
            let stream = streams.make()
            stream.send(Array("id:1\nevent:hello\ndata:{}\n\n".utf8))
            return .stream(stream, headers: ["Content-Type": "text/event-stream"])
        }
    }

    @Test func eventsArriveAsSentAndFinishEndsTheBodyCleanly() async throws {
        let streams = Streams()
        try await withServer(responder: Self.eventStream(streams)) { _, client in
            let events = try await client.openEventStream("/events")
            #expect(events.status == 200)
            #expect(events.header("Content-Type") == "text/event-stream")
            #expect(events.header("Transfer-Encoding") == "chunked")
            #expect(try await events.next() == ["id": "1", "event": "hello", "data": "{}"])
            let stream = try #require(streams.all.first)
            #expect(stream.send(Array("event:later\ndata:2\n\n".utf8)))
            #expect(try await events.next() == ["event": "later", "data": "2"])
            stream.finish()
            #expect(try await events.readToEnd() == 0)
            #expect(await streams.waitForEnded(1) == 1)
            #expect(!stream.send(Array("data:too late\n\n".utf8)))
        }
    }

    @Test func aClientThatLeavesFreesItsStream() async throws {
        let streams = Streams()
        try await withServer(responder: Self.eventStream(streams)) { server, client in
            let events = try await client.openEventStream("/events")
            _ = try await events.next()
            events.hangUp()
            // The keep-alive's next write finds the client gone.
            #expect(await streams.waitForEnded(1) == 1)
            #expect(streams.all.first?.isOpen == false)
            try await waitUntil("the stream's request to complete") { server.activeRequestCount == 0 }
        }
    }

    @Test func shutdownEndsOpenStreamsInsteadOfWaitingOutTheGracePeriod() async throws {
        let streams = Streams()
        let recorder = LogRecorder()
        let server = HTTPServer(
            configuration: .init(port: 0, threadCount: 2), logger: recorder.logger, responder: Self.eventStream(streams))
        try server.start()
        try await stoppingAfterwards(server) {
            let client = HTTPTestClient(port: server.port)
            let first = try await client.openEventStream("/a")
            let second = try await client.openEventStream("/b")
            _ = try await first.next()
            _ = try await second.next()
            async let firstEnd = first.readToEnd()
            async let secondEnd = second.readToEnd()
            await server.shutdown(gracePeriod: .seconds(60))
            // Each stream got its last chunk (a clean end), and shutdown never had to give up on it.
            #expect(try await firstEnd == 0)
            #expect(try await secondEnd == 0)
            #expect(streams.endedCount == 2)
            #expect(!recorder.entries.contains { $0.message == "shutdown grace period over" })
        }
    }

    @Test func streamsAreBoundedPerAddressAndAFinishedOneFreesItsPlace() async throws {
        let streams = Streams()
        var configuration = HTTPServer.Configuration(port: 0, threadCount: 2)
        configuration.maxStreamsPerIP = 2
        try await withServer(configuration: configuration, responder: Self.eventStream(streams)) { _, client in
            let first = try await client.openEventStream("/1")
            let second = try await client.openEventStream("/2")
            let refused = try await client.request("GET", "/3")
            #expect(refused.status == 429)
            #expect(await streams.waitForEnded(1) == 1, "the refused stream is over for its handler too")
            _ = try await first.next()
            streams.all[0].finish()
            _ = try await first.readToEnd()
            #expect(await streams.waitForEnded(2) == 2)
            let third = try await client.openEventStream("/4")
            #expect(third.status == 200)
            _ = try await second.next()
        }
    }

    @Test func waitingStreamsDoNotHoldTheServersOnlyThread() async throws {
        let streams = Streams()
        var router = Router()
        router.on(.get, "/events") { request, _ in await Self.eventStream(streams)(request) }
        router.on(.get, "/plain") { _, _ in .text("still answering") }
        try await withServer(router: router, configuration: .init(port: 0, threadCount: 1)) { _, client in
            var open: [TestEventStream] = []
            for _ in 0..<3 {
                let events = try await client.openEventStream("/events")
                _ = try await events.next()
                open.append(events)
            }
            let plain = try await client.request("GET", "/plain")
            #expect(plain.status == 200 && plain.text == "still answering")
            streams.all[1].send(Array("data:woken\n\n".utf8))
            #expect(try await open[1].next() == ["data": "woken"])
        }
    }

    @Test func aClientThatStopsReadingIsCutOffNotBufferedForever() {
        let stream = ResponseStream(keepAlive: nil, maxBuffered: 16)
        #expect(stream.send(Array("data:0123456\n\n".utf8)))
        #expect(!stream.send(Array("data:0123456\n\n".utf8)), "past maxBuffered the stream ends")
        #expect(!stream.isOpen)
    }
}
