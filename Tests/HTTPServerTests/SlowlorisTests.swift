import Foundation
import HTTPServer
import HTTPTestClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9, item 9: 1,080 slow connections from 18 loopback addresses (60 each, under the per-address
/// limit) used to fill the server's 1,024 slots and lock everyone else out for 30 s.
@Suite("Slow clients")
struct SlowlorisTests {
    /// A connection from `source` that sends the start of a request and then nothing.
    private static func slowConnection(from source: String, to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
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
        _ = start.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Whether the server has closed `fd` (a read returns 0 or an error other than "would block").
    private static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let read = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        return read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    @Test func eighteenAddressesHoldingSixtyConnectionsEachDoNotLockOthersOut() async throws {
        let configuration = HTTPServer.Configuration(port: 0, threadCount: 2, headerTimeout: 6)
        try await withServer(configuration: configuration, responder: { _ in .text("served") }) { server, _ in
            var slow: [Int32] = []
            defer { slow.forEach { close($0) } }
            for address in 2...19 {
                for _ in 0..<60 {
                    if let fd = Self.slowConnection(from: "127.0.0.\(address)", to: server.port) { slow.append(fd) }
                }
            }
            #expect(slow.count == 1080, "could open only \(slow.count) slow connections")
            try await Task.sleep(for: .milliseconds(300))  // let the server accept them all

            // Everyone else is still served while they hang on: well before any of them times out
            // (a client that gives up after 3 s fails if it has to wait for the 6 s header timeout).
            let response = try await HTTPTestClient(port: server.port, timeout: .seconds(3)).request("GET", "/")
            #expect(response.status == 200 && response.text == "served")

            // And the server lets go of them once they have idled past the header timeout.
            try await Task.sleep(for: .seconds(7))
            let closed = slow.filter(Self.closedByServer).count
            #expect(closed == slow.count, "\(slow.count - closed) slow connections still open after the header timeout")
        }
    }
}
