/// `HOST:PORT` for `--smtp`: `127.0.0.1:2525`, `[::1]:2525`, `localhost:0`, or `:2525` (loopback).
public struct SMTPListenAddress: Sendable, Equatable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address needs brackets
        }
        self.host = host.isEmpty ? "127.0.0.1" : host
        self.port = port
    }

    /// Whether only this machine can connect.
    public var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }
}
