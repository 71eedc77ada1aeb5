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

    /// The HTTP status this error answers with.
    public var status: Int {
        switch self {
        case .malformedEncoding, .malformedTarget, .malformedMultipart, .duplicateField, .missingField,
            .invalidJSON:
            400
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
        }
    }
}
