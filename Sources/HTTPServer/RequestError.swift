/// A client error found while reading a request; it knows its HTTP status and a short,
/// user-facing message that never echoes the offending input.
public enum RequestError: HTTPResponseError, Sendable, Equatable {
    /// Percent-encoding that is truncated, not hex, decodes to NUL or to invalid UTF-8.
    case malformedEncoding
    /// A request target that is not an origin-form path (`/…`).
    case malformedTarget
    /// A multipart body that does not follow RFC 7578 framing.
    case malformedMultipart
    /// The body's `Content-Type` is not one the handler accepts.
    case unsupportedMediaType
    /// A field that must appear once appeared more than once.
    case duplicateField(String)
    /// A required field is missing or empty.
    case missingField(String)
    /// The JSON body did not decode; the associated text is a short reason.
    case invalidJSON(String)
    /// The body exceeds the server's limit.
    case bodyTooLarge
    /// Framing a proxy and this server could read two ways (RFC 9112 §6.1, §6.3): both
    /// `Content-Length` and `Transfer-Encoding`, or `Content-Length` values that disagree.
    case ambiguousFraming
    /// A transfer coding other than `chunked` (RFC 9112 §6.1: 501).
    case unsupportedTransferCoding
    /// A request head RFC 9112 says to reject (§2.2 bare LF, §5.1 whitespace before a colon, §5.2
    /// obs-fold) or with a byte no field may hold (RFC 9110 §5.5: NUL, CR, other controls).
    case malformedHead
    /// A path parameter that names nothing (`/users/not-a-number/sessions`).
    case noSuchResource
    /// No usable `Host` header (RFC 9112 §3.2).
    case malformedHost
    /// A `Host` this server does not answer to (DNS-rebinding defence; RFC 9110 §15.5.20).
    case misdirected(String)

    /// The HTTP status this error answers with.
    public var status: Int {
        switch self {
        case .malformedEncoding, .malformedTarget, .malformedMultipart, .duplicateField, .missingField,
            .invalidJSON, .ambiguousFraming, .malformedHost, .malformedHead:
            400
        case .misdirected:
            421
        case .noSuchResource:
            404
        case .unsupportedTransferCoding:
            501
        case .unsupportedMediaType:
            415
        case .bodyTooLarge:
            413
        }
    }

    /// A short message safe to show to the user.
    public var message: String {
        switch self {
        case .malformedEncoding: "The request contains malformed percent-encoding."
        case .malformedTarget: "The request target is not a valid path."
        case .malformedMultipart: "The multipart body is malformed."
        case .unsupportedMediaType: "Unsupported content type."
        case .duplicateField(let name): "The field \"\(name)\" was sent more than once."
        case .missingField(let name): "The field \"\(name)\" is required."
        case .invalidJSON(let reason): "Invalid JSON body: \(reason)"
        case .bodyTooLarge: "The request body is too large."
        case .ambiguousFraming:
            "The request's length is ambiguous: Content-Length values that differ, or Content-Length with Transfer-Encoding."
        case .unsupportedTransferCoding: "Only the chunked transfer coding is supported."
        case .malformedHead: "The request's header section is malformed."
        case .malformedHost: "The request needs exactly one valid Host header."
        case .noSuchResource: "There is nothing at this address."
        case .misdirected(let host):
            "This server does not answer to the host \"\(host)\". Use its loopback address or a configured host name."
        }
    }
}
