import Foundation
import HTTPServer
import HTTPTestClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Connections that hold a slot without finishing a request: issue 9, item 9 (idle ones) and
/// issue 22, item 11 (ones that trickle a byte now and then, which no idle timeout ever cuts).
@Suite("Slow clients")
struct SlowlorisTests {
    /// A connection from `source` that sends the start of a request and then nothing; nil when the
    /// server does not accept it within a quarter second (an attacker would simply try again).
    private static func slowConnection(from source: String, to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        // Bounds `connect` too (Linux honours SO_SNDTIMEO there), for when the accept queue is full.
        var quarterSecond = timeval(tv_sec: 0, tv_usec: 250_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &quarterSecond, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            return nil
        }
        let start = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        _ = start.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return fd
    }

    /// `each` slow connections from every address 127.0.0.`hosts` (those the server took).
    private static func slowConnections(from hosts: ClosedRange<Int>, each: Int, to port: Int) -> [Int32] {
        hosts.flatMap { host in (0..<each).compactMap { _ in slowConnection(from: "127.0.0.\(host)", to: port) } }
    }

    /// Sends one more byte of the never-ending header on each connection, so none of them is idle.
    private static func trickle(_ connections: [Int32]) {
        var byte = UInt8(ascii: "x")
        for fd in connections { _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Whether the server has closed `fd` (a read returns 0 or an error other than "would block").
    private static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let read = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        return read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    @Test func eighteenAddressesHoldingSixtyConnectionsEachDoNotLockOthersOut() async throws {
        let configuration = HTTPServer.Configuration(port: 0, threadCount: 2, headerTimeout: 6)
        let responder: Responder = { _ in .text("served") }
        try await withServer(configuration: configuration, responder: responder) { server, _ in
            let slow = Self.slowConnections(from: 2...19, each: 60, to: server.port)
            defer { slow.forEach { close($0) } }
            #expect(slow.count == 1080, "could open only \(slow.count) slow connections")

            // Everyone else is still served while they hang on: well before any of them times out
            // (a client that gives up after 3 s fails if it has to wait for the 6 s header timeout).
            let response = try await HTTPTestClient(port: server.port, timeout: .seconds(3)).request("GET", "/")
            #expect(response.status == 200 && response.text == "served")

            // And the server lets go of them once they have idled past the header timeout.
            let open = slow
            try await waitUntil("the server to close the slow connections", timeout: .seconds(12)) {
                open.allSatisfy(Self.closedByServer)
            }
        }
    }

    /// Issue 22, item 11: 70 addresses × 64 connections (each address at its own limit) that keep
    /// trickling used to fill every slot and shut out each new client for as long as they trickled.
    @Test func seventyAddressesTricklingSixtyFourConnectionsEachStillLetANewClientIn() async throws {
        let configuration = HTTPServer.Configuration(port: 0, threadCount: 2)
        let responder: Responder = { _ in .text("served") }
        try await withServer(configuration: configuration, responder: responder) { server, _ in
            let slow = Self.slowConnections(from: 2...71, each: 64, to: server.port)
            defer { slow.forEach { close($0) } }
            // libmicrohttpd accepts one connection per pass over all of them (~1,000 a second here), so
            // the burst of 4,480 takes seconds to get through the accept queue; from then on, while
            // they hold on and trickle, every newcomer is let in. (Before: never, as 4,096 filled
            // the server and the rest queued ahead of everyone else.)
            let probe = HTTPTestClient(port: server.port, timeout: .seconds(1), source: "127.0.0.99")
            try await waitUntil("a newcomer to be served once the burst was accepted", timeout: .seconds(20)) {
                Self.trickle(slow)
                return (try? await probe.request("GET", "/"))?.status == 200
            }
            // Three more newcomers from other addresses while they keep trickling: each is answered
            // within a second (the client gives up after one).
            for attempt in 0..<3 {
                Self.trickle(slow)
                let newcomer = HTTPTestClient(port: server.port, timeout: .seconds(1), source: "127.0.0.\(100 + attempt)")
                let started = ContinuousClock.now
                let response = try await newcomer.request("GET", "/")
                #expect(response.status == 200 && response.text == "served")
                #expect(ContinuousClock.now - started < .seconds(1))
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// A header sent a byte at a time is never idle, so only a deadline on the whole header cuts it.
    @Test func aConnectionTricklingItsHeaderIsCutAtTheHeaderDeadline() async throws {
        let configuration = HTTPServer.Configuration(port: 0, threadCount: 2, headerTimeout: 2)
        let responder: Responder = { _ in .text("served") }
        try await withServer(configuration: configuration, responder: responder) { server, _ in
            let fd = try #require(Self.slowConnection(from: "127.0.0.2", to: server.port))
            defer { close(fd) }
            let started = ContinuousClock.now
            try await waitUntil("the server to cut the trickling connection", timeout: .seconds(5), interval: .milliseconds(250))
            {
                Self.trickle([fd])
                return Self.closedByServer(fd)
            }
            #expect(ContinuousClock.now - started > .seconds(1))
        }
    }
}
