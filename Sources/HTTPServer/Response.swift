import Foundation

/// An HTTP response: status, ordered headers and a fully buffered body, or a stream written
/// after the headers (`Response.stream`).
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, the body is this stream's bytes instead of `body`.
    public var stream: ResponseStream?

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An HTML page (`text/html; charset=utf-8`).
    public static func html(_ html: String, status: Int = 200) -> Response {
        .html(bytes: Array(html.utf8), status: status)
    }

    /// An HTML page already encoded as UTF-8.
    public static func html(bytes: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: bytes)
    }

    /// Plain text (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// `value` encoded as JSON with sorted keys and ISO-8601 dates with fractional seconds.
    /// Throws what `JSONEncoder` throws (a handler's error, which the router turns into a 500).
    public static func json(_ value: some Encodable, status: Int = 200) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom(JSONDates.encode)
        return json(raw: Array(try encoder.encode(value)), status: status)
    }

    /// Already-encoded JSON bytes.
    public static func json(raw: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: raw)
    }

    /// Already-encoded JSON text.
    public static func json(raw: String, status: Int = 200) -> Response {
        json(raw: Array(raw.utf8), status: status)
    }

    /// A redirect to `location`; 303 by default so a form POST is followed by a GET.
    public static func redirect(to location: String, status: Int = 303) -> Response {
        Response(status: status, headers: ["Location": location])
    }

    /// No body (204 by default).
    public static func empty(status: Int = 204) -> Response {
        Response(status: status)
    }
}
