import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal SMTP server on 127.0.0.1 that accepts every message and keeps it, so tests can read
/// what a real PocketBase mails. Speaks just enough SMTP for Go's net/smtp (no TLS, no AUTH).
public final class SMTPSink: Sendable {
    /// One received message: envelope recipients and the raw DATA.
    public struct Message: Sendable {
        public var recipients: [String]
        public var data: String

        /// The body with quoted-printable soft breaks and escapes undone (enough to find links).
        public var decodedText: String { QuotedPrintable.decode(data) }
    }

    public let port: Int
    private let listener: Int32
    private let messages = Mutex<[Message]>([])
    private let stopped = Atomic<Bool>(false)

    public init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SupportError("socket failed: \(errno)") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw SupportError("bind/listen failed: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "smtp-sink"
        thread.start()
    }

    /// Every message received so far, oldest first.
    public var received: [Message] { messages.withLock { $0 } }

    /// Waits until a message to `recipient` arrives whose decoded text matches `pattern`; returns
    /// the first capture group of the newest such message.
    public func waitForMatch(to recipient: String, pattern: String, timeout: Duration = .seconds(10)) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let regex = try NSRegularExpression(pattern: pattern)
        while ContinuousClock.now < deadline {
            for message in received.reversed()
            where message.recipients.contains(where: { $0.lowercased() == recipient.lowercased() }) {
                let text = message.decodedText
                if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                    let range = Range(match.range(at: 1), in: text)
                {
                    return String(text[range])
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SupportError("no mail to \(recipient) matching \(pattern) within \(timeout); got \(received.count) message(s)")
    }

    /// Stops accepting; a second call does nothing (the listener's descriptor is closed once).
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            if client < 0 { if stopped.load(ordering: .sequentiallyConsistent) { return } else { continue } }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var reader = LineReader(fd: fd)
        func reply(_ line: String) {
            let bytes = Array((line + "\r\n").utf8)
            _ = write(fd, bytes, bytes.count)
        }
        reply("220 localhost smtp-sink")
        var recipients: [String] = []
        while let line = reader.line() {
            let upper = line.uppercased()
            if upper.hasPrefix("EHLO") {
                reply("250-localhost")
                reply("250 8BITMIME")
            } else if upper.hasPrefix("HELO") {
                reply("250 localhost")
            } else if upper.hasPrefix("MAIL FROM") {
                recipients = []
                reply("250 OK")
            } else if upper.hasPrefix("RCPT TO") {
                let address = line.drop(while: { $0 != "<" }).dropFirst().prefix(while: { $0 != ">" })
                recipients.append(String(address))
                reply("250 OK")
            } else if upper == "DATA" {
                reply("354 End data with <CR><LF>.<CR><LF>")
                var lines: [String] = []
                while let dataLine = reader.line(), dataLine != "." {
                    lines.append(dataLine.hasPrefix("..") ? String(dataLine.dropFirst()) : dataLine)
                }
                let message = Message(recipients: recipients, data: lines.joined(separator: "\r\n"))
                messages.withLock { $0.append(message) }
                reply("250 OK queued")
            } else if upper == "QUIT" {
                reply("221 Bye")
                return
            } else if upper == "RSET" || upper == "NOOP" {
                reply("250 OK")
            } else {
                reply("502 Command not implemented")
            }
        }
    }
}

/// Reads CRLF-terminated lines from a blocking socket.
private struct LineReader {
    let fd: Int32
    var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    mutating func line() -> String? {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var lineBytes = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if lineBytes.last == UInt8(ascii: "\r") { lineBytes.removeLast() }
                return String(decoding: lineBytes, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

enum QuotedPrintable {
    static func decode(_ text: String) -> String {
        let joined = text.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=\n", with: "")
        var bytes: [UInt8] = []
        var utf8 = Array(joined.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "="), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

public struct SupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
