import Foundation

/// A server-sent-events response read as it arrives: the status and headers first, then one event
/// at a time from the chunked body (comment-only blocks, such as keep-alives, are skipped).
/// One reader at a time, like `TestSocket` underneath it.
public final class TestEventStream: @unchecked Sendable {
    public let status: Int
    public let headers: [(String, String)]
    private let socket: TestSocket
    /// Received and not yet returned as an event.
    private var text = ""

    init(socket: TestSocket, status: Int, headers: [(String, String)]) {
        self.socket = socket
        self.status = status
        self.headers = headers
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// The next event's fields (`id`, `event`, `data`, …), exactly as written after each colon.
    public func next() async throws(TestClientError) -> [String: String] {
        try await BlockingWork.run { () throws(TestClientError) in
            while true {
                if let event = Self.takeEvent(from: &self.text) { return event }
                guard let chunk = try Self.readChunk(self.socket) else { throw .closedEarly }
                self.text += String(decoding: chunk, as: UTF8.self)
            }
        }
    }

    /// Reads until the server ends the stream (its last chunk, or closing); returns the events skipped.
    public func readToEnd() async throws(TestClientError) -> Int {
        try await BlockingWork.run { () throws(TestClientError) in
            var skipped = 0
            while let chunk = try Self.readChunk(self.socket) {
                self.text += String(decoding: chunk, as: UTF8.self)
                while Self.takeEvent(from: &self.text) != nil { skipped += 1 }
            }
            return skipped
        }
    }

    /// Goes away without a word, as a closed browser tab does.
    public func hangUp() { socket.hangUp() }

    /// One chunk of the body; nil at its end (the zero-length chunk, or the peer closing).
    private static func readChunk(_ socket: TestSocket) throws(TestClientError) -> [UInt8]? {
        let sizeLine: [UInt8]
        do { sizeLine = try socket.read(through: Array("\r\n".utf8)) } catch .closedEarly { return nil }
        let size = String(decoding: sizeLine.dropLast(2), as: UTF8.self).split(separator: ";").first.flatMap {
            Int($0.trimmingCharacters(in: .whitespaces), radix: 16)
        }
        guard let size else { throw .malformedResponse("bad chunk size") }
        if size == 0 { return nil }
        let chunk = try socket.read(count: size)
        _ = try socket.read(count: 2)
        return chunk
    }

    /// Removes the first complete event block from `text`; nil when none is complete.
    private static func takeEvent(from text: inout String) -> [String: String]? {
        while let end = text.range(of: "\n\n") {
            let block = String(text[..<end.lowerBound])
            text.removeSubrange(..<end.upperBound)
            var fields: [String: String] = [:]
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            if !fields.isEmpty { return fields }
        }
        return nil
    }
}

extension HTTPTestClient {
    /// Opens `target` with GET and reads the response head; the body is read with `next()`.
    public func openEventStream(_ target: String, headers: [(String, String)] = []) async throws(TestClientError)
        -> TestEventStream
    {
        let (host, port, timeout, source) = (self.host, self.port, self.timeout, self.source)
        let request = Self.encode("GET", target, headers: headers, body: [], close: false, host: "\(host):\(port)")
        return try await BlockingWork.run { () throws(TestClientError) in
            let socket = try TestSocket(host: host, port: port, timeout: timeout, source: source)
            try socket.write(request)
            let head = String(decoding: try socket.read(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let statusParts = lines.first?.split(separator: " ") ?? []
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
                throw .malformedResponse(String(head.prefix(200)))
            }
            let fields = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            return TestEventStream(socket: socket, status: status, headers: fields)
        }
    }
}
