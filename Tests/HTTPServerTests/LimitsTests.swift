import HTTPServer
import HTTPTestClient
import Testing

@Suite("Limits")
struct LimitsTests {
    static let small = HTTPServer.Configuration(port: 0, threadCount: 2, maxBodyBytes: 1024, maxHeaderBytes: 8 * 1024)
    static let bodySize: Responder = { request in .text("got \(request.body.count)") }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        try await withServer(configuration: Self.small, responder: Self.bodySize) { _, client in
            let response = try await client.request("POST", "/", body: [UInt8](repeating: 65, count: 1024))
            #expect(response.status == 200)
            #expect(response.text == "got 1024")
        }
    }

    @Test func contentLengthOverTheLimitIs413WithoutReadingTheBody() async throws {
        let called = Counter()
        let responder: Responder = { _ in
            called.increment()
            return .text("reached")
        }
        try await withServer(configuration: Self.small, responder: responder) { _, client in
            // Only the head is sent: the answer must come without waiting for the 10 MB.
            let response = try await client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
            #expect(response.status == 413)
        }
        #expect(called.value == 0)
    }

    @Test func chunkedBodyGrowingPastTheLimitIs413() async throws {
        try await withServer(configuration: Self.small, responder: Self.bodySize) { _, client in
            var raw = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for _ in 0..<3 {
                raw += "200\r\n" + String(repeating: "x", count: 512) + "\r\n"
            }
            raw += "0\r\n\r\n"
            let response = try await client.send(raw)
            #expect(response.status == 413)
        }
    }

    @Test func endlessChunkedBodyIsCutOff() async throws {
        try await withServer(configuration: Self.small, responder: Self.bodySize) { _, client in
            var raw = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            for _ in 0..<64 {
                raw += "400\r\n" + String(repeating: "x", count: 1024) + "\r\n"
            }
            // No final chunk: the server must not wait for one.
            do throws(TestClientError) {
                let response = try await client.send(raw)
                #expect(response.status == 413)
            } catch {
                // Cut off mid-upload: the client sees the close (or a reset while still writing).
                let cut = if case .socketFailed = error { true } else { error == .closedEarly }
                #expect(cut)
            }
        }
    }

    @Test func chunkedBodyWithinTheLimitIsRead() async throws {
        try await withServer(configuration: Self.small, responder: Self.bodySize) { _, client in
            let raw =
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
            let response = try await client.send(raw)
            #expect(response.text == "got 11")
        }
    }

    @Test func oversizedHeadersAreRejectedByMHD() async throws {
        let called = Counter()
        let responder: Responder = { _ in
            called.increment()
            return .text("reached")
        }
        try await withServer(configuration: Self.small, responder: responder) { server, client in
            let huge = String(repeating: "a", count: 16 * 1024)
            let response = try await client.request("GET", "/", headers: [("X-Huge", huge)])
            #expect(response.status == 431)
            // MHD 0.9.75 answers a request line that does not fit with 414, headers with 431.
            let longTarget = try await client.request("GET", "/" + huge)
            #expect(longTarget.status == 414)
            // Every request MHD rejected itself was still completed and released.
            try await waitUntil("the rejected requests to complete") { server.activeRequestCount == 0 }
        }
        #expect(called.value == 0)
    }

    /// What `gatehouse serve` reads to tell a burst from a quiet spell (it trims the heap after one).
    @Test func completedRequestsAreCounted() async throws {
        let responder: Responder = { _ in .text("ok") }
        try await withServer(responder: responder) { server, client in
            #expect(server.completedRequestCount == 0)
            for _ in 0..<3 { _ = try await client.request("GET", "/") }
            try await waitUntil("three completed requests") { server.completedRequestCount >= 3 }
            #expect(server.completedRequestCount == 3)
            #expect(server.activeRequestCount == 0)
        }
    }

    @Test func accessLogHasNoQueryCookiesOrAuthorization() async throws {
        let recorder = LogRecorder()
        let responder: Responder = { _ in .text("ok") }
        try await withServer(recorder: recorder, responder: responder) { _, client in
            _ = try await client.request(
                "GET", "/cb?token=secret123",
                headers: [
                    ("Cookie", "sid=cookie-secret"), ("Authorization", "Bearer auth-secret")
                ])
        }
        let access = recorder.entries.filter { $0.message == "request" }
        #expect(access.count == 1)
        let line = access.first
        #expect(line?.level == .info)
        #expect(line?.metadata["path"] == "/cb")
        #expect(line?.metadata["method"] == "GET")
        #expect(line?.metadata["status"] == "200")
        #expect(line?.metadata["remote"] == "127.0.0.1")
        #expect(line?.metadata["duration_ms"] != nil)
        let everything = recorder.entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("secret"))
    }

    @Test func ipv6LoopbackWorks() async throws {
        let configuration = HTTPServer.Configuration(host: "::1", port: 0, threadCount: 1)
        try await withServer(configuration: configuration, responder: RequestParsingTests.echo) { _, client in
            let text = try await client.request("GET", "/six").text
            #expect(text.contains("remote=::1 loopback=true"))
        }
    }
}
