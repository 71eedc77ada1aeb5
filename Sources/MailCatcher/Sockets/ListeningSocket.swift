import Foundation

/// A non-blocking TCP socket listening on `host:port`, as SwiftNIO's `bind(host:port:)` did it:
/// the first address `getaddrinfo` gives for the host (an IPv4 or IPv6 literal, or a name such as
/// `localhost`), `SO_REUSEADDR`, a backlog of 128. Port 0 binds a free port; `port` says which.
struct ListeningSocket: Sendable {
    let descriptor: Int32
    let port: Int

    init(host: String, port: Int) throws(SMTPSocketError) {
        var hints = addrinfo()
        hints.ai_socktype = streamSocketType
        hints.ai_flags = AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let address = found else {
            throw .unresolvableHost(host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(address.pointee.ai_family, streamSocketType | closeOnExec, 0)
        guard descriptor >= 0 else { throw .lastError(of: "socket") }
        do throws(SMTPSocketError) {
            var on: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw .lastError(of: "setsockopt(SO_REUSEADDR)")
            }
            guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { throw .lastError(of: "bind") }
            guard listen(descriptor, 128) == 0 else { throw .lastError(of: "listen") }
            try Self.makeNonBlocking(descriptor)
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, let local = SocketAddress(bound) else { throw .lastError(of: "getsockname") }
            self.descriptor = descriptor
            self.port = local.port
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The next client, or nil once `wake` was woken. A connection the client abandoned before it
    /// was taken is skipped; other failures (out of descriptors, say) are thrown.
    func nextClient(unlessWoken wake: WakePipe) throws(SMTPSocketError) -> ClientSocket? {
        while true {
            var requests = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
            ]
            _ = try Poll.wait(for: &requests, timeout: nil)
            if requests[1].revents != 0 { return nil }
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { acceptClient(descriptor, $0, &length) }
            }
            if client >= 0 { return ClientSocket(descriptor: client, peer: SocketAddress(peer)?.description ?? "?") }
            switch errno {
            case EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: continue
            default: throw .lastError(of: "accept")
            }
        }
    }

    /// Closes the socket, once the accept loop has returned.
    func stopListening() {
        close(descriptor)
    }

    /// The accept loop waits in `poll`, where `shutdown()` can wake it, never in `accept`: a client
    /// that resets between the two would leave a blocking `accept` waiting for the next one.
    private static func makeNonBlocking(_ descriptor: Int32) throws(SMTPSocketError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .lastError(of: "fcntl(O_NONBLOCK)") }
    }
}

#if canImport(Glibc)
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
#else
    private let streamSocketType = SOCK_STREAM
    private let closeOnExec: Int32 = 0
#endif

/// `accept`, then close-on-exec, so a process the server starts does not hold a client's socket
/// open (Glibc's module hides `accept4`, which would do it at once), and non-blocking, which
/// Linux's accepted sockets do not inherit from the listener.
private func acceptClient(_ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    let client = accept(listener, address, &length)
    guard client >= 0 else { return client }
    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
    return client
}
