import Foundation

/// One accepted client's non-blocking socket: every wait on it is a `poll` bounded by the idle
/// timeout, and writing to a client that has gone raises no SIGPIPE. It never closes itself:
/// `OpenConnections` does, under the lock `shutdown()` cuts connections with, so a descriptor
/// number is never cut after the system has given it to someone else.
struct ClientSocket: Sendable {
    let descriptor: Int32
    /// `127.0.0.1:50123`, for logs.
    let peer: String

    /// Reads what the client sent next into `buffer`; 0 once it has closed its side. Throws
    /// `.readTimedOut` when nothing came for `idleTimeout`.
    func read(into buffer: inout [UInt8], idleTimeout: Duration) throws(SMTPSocketError) -> Int {
        try transfer("recv", waitingFor: POLLIN, upTo: idleTimeout, else: .readTimedOut) {
            buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    /// Writes all of `text`, in as many sends as the client's window needs; throws `.writeTimedOut`
    /// when the client took nothing for `idleTimeout`.
    func write(_ text: String, idleTimeout: Duration) throws(SMTPSocketError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            offset += try transfer("send", waitingFor: POLLOUT, upTo: idleTimeout, else: .writeTimedOut) {
                bytes.withUnsafeBytes {
                    send(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
        }
    }

    /// Sends what the socket takes at once of `text` and never waits (a reply to a client turned
    /// away; a fresh socket's buffer takes a short line whole).
    func tryWrite(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Makes `call` (one recv or send) move bytes: again after a signal, and after `poll` says the
    /// socket is ready when it would block; throws `timedOut` when it stayed unready for `timeout`.
    private func transfer(
        _ name: String, waitingFor events: Int32, upTo timeout: Duration, else timedOut: SMTPSocketError, _ call: () -> Int
    ) throws(SMTPSocketError) -> Int {
        while true {
            let count = call()
            if count >= 0 { return count }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                guard try Poll.wait(for: events, on: descriptor, timeout: timeout) else { throw timedOut }
            default:
                throw .lastError(of: name)
            }
        }
    }
}
