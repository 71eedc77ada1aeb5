import Foundation

/// Reads one HTTP/1.1 response from a socket: status line, headers, then a body framed by
/// `Content-Length`, chunked encoding or the end of the stream.
enum ResponseReader {
    static func read(from socket: TestSocket, method: String) throws(TestClientError) -> TestResponse {
        while true {
            let head = try socket.read(through: Array("\r\n\r\n".utf8))
            let text = String(decoding: head.dropLast(4), as: UTF8.self)
            var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            guard !lines.isEmpty else { throw .malformedResponse("empty head") }
            let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                throw .malformedResponse("bad status line")
            }
            var headers: [(String, String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse("bad header line") }
                let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                headers.append((String(line[..<colon]), String(value)))
            }
            // Interim 1xx responses precede the real one.
            if (100..<200).contains(status) { continue }
            let partial = TestResponse(status: status, headers: headers, body: [])
            let body = try readBody(socket, response: partial, method: method)
            return TestResponse(status: status, headers: headers, body: body)
        }
    }

    private static func readBody(_ socket: TestSocket, response: TestResponse, method: String) throws(TestClientError) -> [UInt8]
    {
        if method.uppercased() == "HEAD" || response.status == 204 || response.status == 304 {
            return []
        }
        if let coding = response.header("Transfer-Encoding"), coding.lowercased().contains("chunked") {
            return try readChunked(socket)
        }
        if let length = response.header("Content-Length") {
            guard let count = Int(length), count >= 0 else { throw .malformedResponse("bad Content-Length") }
            return try socket.read(count: count)
        }
        return try socket.readToEnd()
    }

    private static func readChunked(_ socket: TestSocket) throws(TestClientError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = String(decoding: try socket.read(through: Array("\r\n".utf8)).dropLast(2), as: UTF8.self)
            let sizeText = line.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw .malformedResponse("bad chunk size")
            }
            if size == 0 {
                // Trailer fields, if any, end with an empty line.
                while try socket.read(through: Array("\r\n".utf8)).count > 2 {}
                return body
            }
            body += try socket.read(count: size)
            _ = try socket.read(count: 2)
        }
    }
}
