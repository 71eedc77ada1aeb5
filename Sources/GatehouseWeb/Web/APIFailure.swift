import AuthCore
import HTTPServer

/// Failures of Gatehouse's own JSON endpoints; the router answers them in the JSON envelope.
enum APIFailure: HTTPResponseError {
    case invalid(String)
    case notFound(String)
    case forbidden(String)
    case unsupported(String)

    var status: Int {
        switch self {
        case .invalid: return 400
        case .forbidden: return 403
        case .notFound: return 404
        case .unsupported: return 501
        }
    }

    var message: String {
        switch self {
        case .invalid(let text), .notFound(let text), .forbidden(let text), .unsupported(let text): return text
        }
    }
}

/// Backend errors that escape a handler answer with a fitting status and their page message,
/// never a 500 with the details hidden.
extension AuthError: HTTPResponseError {
    public var status: Int {
        switch self {
        case .invalidCredentials, .sessionExpired: return 401
        case .magicLinkOpenedElsewhere: return 409
        case .emailNotVerified: return 403
        case .userNotFound: return 404
        case .emailExists: return 409
        case .invalidCode, .codeExpired, .validation, .sessionNotRefreshable: return 400
        case .rateLimited: return 429
        case .notSupported: return 501
        case .network, .server: return 502
        }
    }

    public var message: String { pageMessage }
}
