import Foundation
import HTTPServer
import HTTPTestClient
import Testing

/// Issue 22, item 13: request heads that RFC 9112 says a server must reject, which two parsers
/// (a proxy in front and this server) could read two ways. Each is answered at once with a client
/// error and the connection closed, before any handler runs.
@Suite("Strict HTTP/1.1 framing")
struct StrictFramingTests {
    /// Sends `raw`, reads until the server closes, and checks the answer came promptly and that
    /// no handler ran; returns the status line.
    private func statusLine(of raw: [UInt8]) async throws -> String {
        let calls = Counter()
        let configuration = HTTPServer.Configuration(port: 0, threadCount: 2)
        let responder: Responder = { _ in
            calls.increment()
            return .text("served")
        }
        let reply = try await withServer(configuration: configuration, responder: responder) { server, _ in
            // Two seconds: a server that waits for more bytes (or keeps the connection) fails here.
            let client = HTTPTestClient(port: server.port, timeout: .seconds(2))
            let started = ContinuousClock.now
            let bytes = try await client.sendAndReadAll(raw)
            #expect(ContinuousClock.now - started < .seconds(1))
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(calls.value == 0, "a handler ran for: \(reply)")
        return String(reply.prefix { $0 != "\r" && $0 != "\n" })
    }

    private func head(_ text: String, _ tail: [UInt8] = []) -> [UInt8] { Array(text.utf8) + tail }

    /// RFC 9112 §6.1 and §7: only `chunked` frames a body; anything else it cannot dechunk.
    @Test(arguments: [
        [UInt8(ascii: "\t")], [0xC2, 0xA0], [0xA0], [UInt8(ascii: " "), UInt8(ascii: "x")]
    ])
    func aTransferEncodingThatIsNotExactlyChunkedIs501(suffix: [UInt8]) async throws {
        let raw =
            head("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked") + suffix
            + head("\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(try await statusLine(of: raw).hasPrefix("HTTP/1.1 501 "))
    }

    /// RFC 9112 §5.1: whitespace between a field name and its colon MUST be rejected with 400.
    @Test(arguments: ["Transfer-Encoding : chunked", "X-Test\t: 1", "Host : 127.0.0.1"])
    func whitespaceBeforeTheColonIs400(field: String) async throws {
        let raw = head("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(field)\r\nContent-Length: 0\r\n\r\n")
        #expect(try await statusLine(of: raw).hasPrefix("HTTP/1.1 400 "))
    }

    /// RFC 9112 §2.2: a bare LF may be read as a line end by one parser and not by another.
    @Test(arguments: [
        "GET / HTTP/1.1\nHost: 127.0.0.1\n\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\nX-Test: 1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: 1\r\n\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: 1\rX-Other: 2\r\n\r\n"
    ])
    func bareLineEndsAre400(raw: String) async throws {
        #expect(try await statusLine(of: head(raw)).hasPrefix("HTTP/1.1 400 "))
    }

    /// RFC 9110 §5.5: NUL is never allowed in a field; libmicrohttpd would cut the value at it.
    @Test(arguments: ["X-Test: a\u{0}b", "X-Test: a\u{0}", "X-Te\u{0}st: 1"])
    func aNulInAHeaderIs400(field: String) async throws {
        let raw = head("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(field)\r\n\r\n")
        #expect(try await statusLine(of: raw).hasPrefix("HTTP/1.1 400 "))
    }

    /// RFC 9112 §5.2: a line folded onto the previous one (obs-fold) is rejected with 400.
    @Test(arguments: ["X-Test: one\r\n two", "X-Test: one\r\n\ttwo", "X-Test: one\r\n Transfer-Encoding: chunked"])
    func obsFoldIs400(fields: String) async throws {
        let raw = head("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n\r\n")
        #expect(try await statusLine(of: raw).hasPrefix("HTTP/1.1 400 "))
    }

    /// What stays allowed: any letter case of `chunked`, OWS around values, HTAB inside one,
    /// an empty value, and a request with no fields but Host.
    @Test func wellFormedHeadsAreStillServed() async throws {
        let responder: Responder = { request in .text("\(request.body.count) \(request.headers["X-Test"] ?? "-")") }
        try await withServer(responder: responder) {
            _, client in
            let chunked = try await client.send(
                "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: ChUnKeD\r\nX-Test:\ta\tb\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            )
            #expect(chunked.status == 200 && chunked.text == "5 a\tb")
            let empty = try await client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test:\r\nConnection: close\r\n\r\n")
            #expect(empty.status == 200 && empty.text == "0 ")
            let bare = try await client.send("GET /?a=1&b=2 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(bare.status == 200 && bare.text == "0 -")
        }
    }
}
