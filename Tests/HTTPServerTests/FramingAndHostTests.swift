import Foundation
import HTTPServer
import HTTPTestClient
import Testing

/// Issue 9, items 1 and 3: requests whose length two parties could read differently, and `Host`
/// names this server does not answer to, are refused before any handler runs.
@Suite("Framing and Host")
struct FramingAndHostTests {
    static let strict = HTTPServer.Configuration(
        port: 0, threadCount: 2, connectionTimeout: 30, headerTimeout: 2, maxBodyBytes: 1024,
        allowedHosts: HostAllowList(names: ["gatehouse.test"]))

    /// Sends `raw` and reads everything until the server closes: one response, or none.
    private func exchange(_ raw: String, counting calls: Counter) async throws -> String {
        let responder: Responder = { request in
            calls.increment()
            return .text("served \(request.path)")
        }
        return try await withServer(configuration: Self.strict, responder: responder) { _, client in
            String(decoding: try await client.sendAndReadAll(Array(raw.utf8)), as: UTF8.self)
        }
    }

    @Test func contentLengthWithTransferEncodingIs400AndTheSmuggledRequestIsNeverServed() async throws {
        let calls = Counter()
        let reply = try await exchange(
            "POST /first HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 400 "), "\(reply)")
        #expect(reply.components(separatedBy: "HTTP/1.1 ").count == 2, "exactly one response: \(reply)")
        #expect(!reply.contains("served"))
        #expect(calls.value == 0)
    }

    @Test(arguments: [
        "Content-Length: 5\r\nContent-Length: 6", "Content-Length: 5, 6", "Content-Length: +5", "Content-Length: 0x5",
        "Content-Length: 5\u{A0}", "Content-Length: 5,\u{2003}5"
    ])
    func conflictingOrMalformedLengthsAre400(headers: String) async throws {
        let calls = Counter()
        let reply = try await exchange(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n\r\nabcdef\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 400 "), "\(reply)")
        #expect(calls.value == 0)
    }

    @Test func aRepeatedEqualLengthIsFine() async throws {
        let calls = Counter()
        let reply = try await exchange(
            "POST /same HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
            counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 200 "), "\(reply)")
        #expect(reply.hasSuffix("served /same"))
    }

    @Test func anUnknownTransferCodingIs501() async throws {
        let calls = Counter()
        let reply = try await exchange(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 501 "), "\(reply)")
        #expect(calls.value == 0)
    }

    @Test func anImpossibleChunkThatStallsIsCutAfterTheHeaderTimeoutNotTheIdleOne() async throws {
        let calls = Counter()
        let started = ContinuousClock.now
        let reply = try await exchange(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\nabc", counting: calls)
        // The 30 s idle timeout would outlast the client's own 10 s read timeout (an error here).
        #expect(!reply.contains("served"))
        #expect(ContinuousClock.now - started < .seconds(9))
        #expect(calls.value == 0)
    }

    @Test(arguments: ["evil.example", "evil.example:8080", "127.0.0.1.nip.io", "localhost.evil.example", "007.0.0.1.evil.example"]
    )
    func aRebindingHostIs421(host: String) async throws {
        let calls = Counter()
        let reply = try await exchange(
            "GET /_/api/mailbox HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 421 "), "\(reply)")
        #expect(calls.value == 0)
    }

    @Test(arguments: [
        "127.0.0.1:8080", "localhost", "LOCALHOST.:80", "app.localhost:3000", "[::1]:8080", "10.0.0.7", "gatehouse.test",
        "Gatehouse.Test:443", "127.000.0.1", "[::FFFF:7F00:1]"
    ])
    func loopbackIPLiteralsAndListedNamesAreServed(host: String) async throws {
        let calls = Counter()
        let reply = try await exchange("GET /ok HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 200 "), "\(host): \(reply)")
    }

    @Test(arguments: [
        "", "a b", "[::1", "host:port", "two.example\r\nHost: second.example", "ex..ample",
        "\u{212A}.example", "gatehouse.tes\u{212A}", "a.b:123456", "[fe80::1%eth0]", "256.0.0.1:x"
    ])
    func aMissingOrGarbledHostIs400(host: String) async throws {
        let calls = Counter()
        let reply = try await exchange("GET / HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n", counting: calls)
        #expect(reply.hasPrefix("HTTP/1.1 400 "), "\(host.debugDescription): \(reply)")
        #expect(calls.value == 0)
    }
}
