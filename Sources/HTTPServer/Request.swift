import Foundation

/// An HTTP request as handed to a responder: decoded, validated and fully read.
public struct Request: Sendable {
    public let method: HTTPMethod
    /// The percent-decoded path (strictly decoded: malformed input never reaches a handler).
    public let path: String
    /// The path exactly as the client sent it.
    public let rawPath: String
    /// Decoded path segments split on the raw `/`, so `%2F` stays inside a segment.
    public let pathSegments: [String]
    /// Decoded query parameters; repeated keys are all kept.
    public let query: Parameters
    public let headers: HTTPHeaders
    /// Cookies from the `Cookie` header; on a repeated name the first wins (RFC 6265 §5.4 order).
    public let cookies: [String: String]
    public let body: [UInt8]
    /// The peer's IP address as text (IPv4 dotted or IPv6).
    public let remoteAddress: String
    /// Whether the peer connected from a loopback address.
    public let isLoopbackPeer: Bool

    /// Builds a request from a raw origin-form target such as `/users/42?tab=profile`.
    /// Used by the server and by tests that call a router directly.
    public init(
        method: HTTPMethod,
        target: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1",
        isLoopbackPeer: Bool = true
    ) throws(RequestError) {
        self.init(
            method: method,
            target: try RequestTarget(parsing: target),
            headers: headers,
            body: body,
            remoteAddress: remoteAddress,
            isLoopbackPeer: isLoopbackPeer
        )
    }

    init(
        method: HTTPMethod,
        target: RequestTarget,
        headers: HTTPHeaders,
        body: [UInt8],
        remoteAddress: String,
        isLoopbackPeer: Bool
    ) {
        self.method = method
        self.path = target.path
        self.rawPath = target.rawPath
        self.pathSegments = target.segments
        self.query = target.query
        self.headers = headers
        self.cookies = Self.parseCookies(headers.values(for: "Cookie"))
        self.body = body
        self.remoteAddress = remoteAddress
        self.isLoopbackPeer = isLoopbackPeer
    }

    /// The media type of the body (`Content-Type` without parameters), lowercased. Read by every API
    /// call with a body, so trimmed on the bytes (`trimmingBlanks`) rather than by Foundation, and
    /// lowercased only when it has capitals (SDKs send `application/json`).
    public var mediaType: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        let type = Self.trimmingBlanks(contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let hasCapitals = type.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        return hasCapitals ? type.lowercased() : String(type)
    }

    /// Whether the body is declared JSON: `application/json` or a `…+json` type (RFC 6839).
    public var declaresJSON: Bool {
        guard let mediaType else { return false }
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }
}
