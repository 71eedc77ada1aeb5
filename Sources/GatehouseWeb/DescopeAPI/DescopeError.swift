import AuthCore
import Foundation
import HTTPServer

/// The error codes this API answers: the first seven as DescopeKit's `DescopeError` names them,
/// `userNotFound` as Descope's web SDK does; the rest are the codes Gatehouse picked where Descope's
/// own are not published (README, "Descope-compatible API").
enum DescopeCode {
    static let badRequest = "E011001"
    static let missingArguments = "E011002"
    static let invalidRequest = "E011003"
    static let invalidArguments = "E011004"
    static let wrongOTPCode = "E061102"
    static let tooManyOTPAttempts = "E061103"
    static let enchantedLinkPending = "E062503"
    static let userNotFound = "E062108"
    static let userDisabled = "E062109"
    static let invalidCredentials = "E062801"
    static let userExists = "E063003"
    static let rateLimited = "E130429"
}

/// A refusal a handler throws, answered in Descope's shape.
struct DescopeAnswer: Error {
    var status: Int
    var code: String
    var description: String
    var message: String

    init(_ status: Int, _ code: String, _ description: String, _ message: String = "") {
        (self.status, self.code, self.description, self.message) = (status, code, description, message)
    }

    var response: Response { DescopeError.response(status, code, description, message) }

    /// A body field that must be there and is not.
    static func missing(_ field: String) -> DescopeAnswer {
        DescopeAnswer(400, DescopeCode.missingArguments, "Missing arguments", "\(field) is required")
    }

    /// A right first step for an account with an authenticator app: no session yet.
    static let secondStepOwed = DescopeAnswer(
        403, DescopeCode.invalidRequest, "Second step required",
        "This account has an authenticator app: send its code to totp/verify {loginId, code}")

    /// A code check the source has no tries left for.
    static func tooManyOTPAttempts(_ wait: Int) -> DescopeAnswer {
        DescopeAnswer(429, DescopeCode.tooManyOTPAttempts, "Too many OTP attempts", "Try again in \(wait) seconds")
    }

    /// No refresh JWT, or one that is not a live refresh JWT of this project.
    static let unauthorized = DescopeAnswer(
        401, DescopeCode.invalidRequest, "Unauthorized",
        "Send Authorization: Bearer <projectId>:<refreshJwt> with a live refresh JWT")
}

/// Descope's error body, `{"errorCode", "errorDescription", "errorMessage"}`: DescopeKit turns it
/// into `DescopeError(code, desc, message)`; the Python SDK keeps the raw text.
enum DescopeError {
    private struct Body: Encodable {
        var errorCode: String
        var errorDescription: String
        var errorMessage: String
    }

    static func response(_ status: Int, _ code: String, _ description: String, _ message: String) -> Response {
        (try? .json(Body(errorCode: code, errorDescription: description, errorMessage: message), status: status))
            ?? .text(description, status: status)
    }

    /// Everything under `/v1/auth` and `/v2/keys` that no handler answered itself: unreadable JSON,
    /// unknown routes, wrong methods.
    static let renderer: Router.ErrorRenderer = { status, message in
        switch status {
        case 400: response(400, DescopeCode.badRequest, "Bad request", message)
        case 401: response(401, DescopeCode.invalidRequest, "Unauthorized", message)
        case 429: response(429, DescopeCode.rateLimited, "Too many requests", message)
        default: response(status, status >= 500 ? "E000000" : DescopeCode.badRequest, "Request failed", message)
        }
    }

    /// A seam error in Descope's words. A wrong password and an unknown login id read alike, and so
    /// do a wrong, used and expired code.
    static func response(for error: AuthError) -> Response {
        switch error {
        case .invalidCredentials:
            return response(401, DescopeCode.invalidCredentials, "Invalid login credentials", "The login id or password is wrong")
        case .emailNotVerified:
            return response(403, DescopeCode.invalidRequest, "Email not verified", "Verify the email address first")
        case .userNotFound: return response(400, DescopeCode.userNotFound, "User not found", "")
        case .emailExists:
            return response(409, DescopeCode.userExists, "User already exists", "A user with this login id already exists")
        case .validation(let fields):
            let text = fields.map { "\($0.field): \($0.message)" }.joined(separator: " ")
            return response(400, DescopeCode.invalidArguments, "Invalid arguments", text)
        case .invalidCode, .codeExpired:
            return response(401, DescopeCode.wrongOTPCode, "Wrong code", "The code or link is wrong, used or out of date")
        case .rateLimited(let wait):
            return response(429, DescopeCode.rateLimited, "Too many requests", "Try again in \(wait) seconds").retrying(
                after: wait)
        case .sessionExpired, .sessionNotRefreshable:
            return DescopeAnswer.unauthorized.response
        case .notSupported(let capability):
            return response(
                501, DescopeCode.badRequest, "Not supported",
                "\(capability.displayName) is not supported by the backend Gatehouse is connected to")
        case .magicLinkOpenedElsewhere:
            return response(401, DescopeCode.wrongOTPCode, "Wrong code", "The link does not work here")
        case .network, .server: return response(502, "E000000", "Backend unavailable", "The account service could not be reached")
        }
    }
}
