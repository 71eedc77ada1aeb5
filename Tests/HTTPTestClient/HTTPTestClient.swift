/// A minimal HTTP/1.1 client for talking to a server on loopback in tests: raw bytes in,
/// parsed response out, one connection per request (`Connection: close`) unless a
/// `TestConnection` is used. Every call gives up after `timeout` (30 s: generous, since parallel suites on 2 cores are slow), so a hung server fails the test.
public struct HTTPTestClient: Sendable {
    public let host: String
    public let port: Int
    public var timeout: Duration
    /// The local address connections come from (e.g. "127.0.0.2" to act as another client on
    /// loopback); nil lets the system pick.
    public var source: String?

    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(30), source: String? = nil) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.source = source
    }

    /// Sends `raw` as-is on a new connection and reads one response.
    /// `method` only tells the reader whether a body follows (not for HEAD).
    public func send(_ raw: String, method: String = "GET") async throws(TestClientError) -> TestResponse {
        try await send(Array(raw.utf8), method: method)
    }

    /// Sends `raw` bytes as-is on a new connection and reads one response.
    public func send(_ raw: [UInt8], method: String = "GET") async throws(TestClientError) -> TestResponse {
        let (host, port, timeout, source) = (self.host, self.port, self.timeout, self.source)
        return try await BlockingWork.run { () throws(TestClientError) in
            let socket = try TestSocket(host: host, port: port, timeout: timeout, source: source)
            try socket.write(raw)
            return try ResponseReader.read(from: socket, method: method)
        }
    }

    /// Sends `raw` and returns every byte the server writes until it closes the connection.
    public func sendAndReadAll(_ raw: [UInt8]) async throws(TestClientError) -> [UInt8] {
        let (host, port, timeout, source) = (self.host, self.port, self.timeout, self.source)
        return try await BlockingWork.run { () throws(TestClientError) in
            let socket = try TestSocket(host: host, port: port, timeout: timeout, source: source)
            try socket.write(raw)
            return try socket.readToEnd()
        }
    }

    /// A well-formed request with `Host`, `Content-Length` (when there is a body) and
    /// `Connection: close` added.
    public func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws(TestClientError) -> TestResponse {
        try await send(
            Self.encode(method, target, headers: headers, body: body, close: true, host: "\(host):\(port)"),
            method: method)
    }

    /// Opens a persistent connection for several requests (keep-alive tests).
    public func connect() async throws(TestClientError) -> TestConnection {
        let (host, port, timeout, source) = (self.host, self.port, self.timeout, self.source)
        let socket = try await BlockingWork.run { () throws(TestClientError) in
            try TestSocket(host: host, port: port, timeout: timeout, source: source)
        }
        return TestConnection(socket: socket, host: host, port: port)
    }

    /// The bytes of a request with the framing headers filled in.
    static func encode(
        _ method: String, _ target: String, headers: [(String, String)], body: [UInt8], close: Bool, host: String = "localhost"
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("host") { head += "Host: \(host)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty, !names.contains("content-length"), !names.contains("transfer-encoding") {
            head += "Content-Length: \(body.count)\r\n"
        }
        if close, !names.contains("connection") { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}

/// One kept-alive connection: requests go out one at a time, each answer read in full.
public final class TestConnection: Sendable {
    private let socket: TestSocket
    private let host: String
    public let port: Int

    init(socket: TestSocket, host: String, port: Int) {
        self.socket = socket
        self.host = host
        self.port = port
    }

    /// Sends a request without `Connection: close` and reads its response.
    public func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws(TestClientError) -> TestResponse {
        let bytes = HTTPTestClient.encode(method, target, headers: headers, body: body, close: false, host: "\(host):\(port)")
        let socket = self.socket
        return try await BlockingWork.run { () throws(TestClientError) in
            try socket.write(bytes)
            return try ResponseReader.read(from: socket, method: method)
        }
    }

    /// Sends raw bytes on this connection and reads one response.
    public func send(_ raw: [UInt8], method: String = "GET") async throws(TestClientError) -> TestResponse {
        let socket = self.socket
        return try await BlockingWork.run { () throws(TestClientError) in
            try socket.write(raw)
            return try ResponseReader.read(from: socket, method: method)
        }
    }
}
