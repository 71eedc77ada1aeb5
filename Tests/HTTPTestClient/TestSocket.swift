import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a test request failed.
public enum TestClientError: Error, Sendable, Equatable {
    /// `connect` failed (e.g. ECONNREFUSED once the server stopped); carries errno.
    case connectFailed(Int32)
    /// The server did not answer within the client's timeout.
    case timedOut
    /// The connection closed before a complete response arrived.
    case closedEarly
    /// The bytes received are not an HTTP/1.1 response.
    case malformedResponse(String)
    /// A socket call failed; carries errno.
    case socketFailed(Int32)
}

/// A blocking TCP socket with send/receive timeouts. Used only off the Swift concurrency pool.
final class TestSocket: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var reachedEOF = false

    /// Connects to `host` (IPv4 or IPv6 literal) and `port`, from the IPv4 `source` address when given.
    init(host: String, port: Int, timeout: Duration, source: String? = nil) throws(TestClientError) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
        } else {
            throw .connectFailed(EINVAL)
        }
        #if canImport(Glibc)
            let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .socketFailed(errno) }
        self.descriptor = descriptor
        let seconds = timeout.components.seconds
        var interval = timeval()
        interval.tv_sec = .init(seconds)
        interval.tv_usec = .init(timeout.components.attoseconds / 1_000_000_000_000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else { throw .connectFailed(EINVAL) }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw .socketFailed(errno) }
        }
        let result: Int32
        if family == AF_INET {
            result = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            result = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard result == 0 else {
            // No close here: the object is fully initialised, so `deinit` runs and closes it. A second
            // close could hit a descriptor another thread has just been given (seen as EBADF in tests).
            throw .connectFailed(errno)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Ends the connection both ways now (the descriptor is still closed by `deinit`), as a client
    /// that goes away does.
    func hangUp() {
        #if canImport(Glibc)
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        #else
            _ = shutdown(descriptor, SHUT_RDWR)
        #endif
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws(TestClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
                throw .socketFailed(errno)
            }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws(TestClientError) -> Bool {
        guard !reachedEOF else { return false }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
            // A reset after the server answered and closed counts as end of stream.
            if errno == ECONNRESET {
                reachedEOF = true
                return false
            }
            throw .socketFailed(errno)
        }
        if count == 0 {
            reachedEOF = true
            return false
        }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// Bytes up to and including `delimiter`.
    func read(through delimiter: [UInt8]) throws(TestClientError) -> [UInt8] {
        var searchFrom = 0
        while true {
            if let range = firstRange(of: delimiter, from: searchFrom) {
                let result = Array(buffer[..<range.upperBound])
                buffer.removeFirst(range.upperBound)
                return result
            }
            searchFrom = max(0, buffer.count - delimiter.count)
            guard try fill() else { throw .closedEarly }
        }
    }

    /// Exactly `count` bytes.
    func read(count: Int) throws(TestClientError) -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw .closedEarly }
        }
        let result = Array(buffer[..<count])
        buffer.removeFirst(count)
        return result
    }

    /// Everything until the peer closes.
    func readToEnd() throws(TestClientError) -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    private func firstRange(of needle: [UInt8], from start: Int) -> Range<Int>? {
        guard buffer.count >= needle.count, start <= buffer.count - needle.count else { return nil }
        for index in start...(buffer.count - needle.count)
        where buffer[index..<(index + needle.count)].elementsEqual(needle) {
            return index..<(index + needle.count)
        }
        return nil
    }
}
