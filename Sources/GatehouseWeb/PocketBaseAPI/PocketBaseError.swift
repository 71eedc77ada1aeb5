import AuthCore
import HTTPServer

/// PocketBase's error envelope, `{"data": {}, "message": TEXT, "status": N}`, for everything under
/// `/api` that is not InsForge's `/api/auth`: unknown routes, wrong methods and unreadable bodies
/// answer as PocketBase itself does, so its SDKs decode them (WIRE.md). Field problems go in `data`
/// as `{field: {code, message}}`, with PocketBase's codes.
enum PocketBaseError {
    struct FieldProblem: Encodable, Sendable {
        var code: String
        var message: String
    }

    private struct Body: Encodable {
        var data: [String: FieldProblem]
        var message: String
        var status: Int
    }

    static func response(status: Int, message: String, data: [String: FieldProblem] = [:]) -> Response {
        (try? .json(Body(data: data, message: message, status: status), status: status)) ?? .text(message, status: status)
    }

    /// The router's errors in PocketBase's words for each status.
    static let renderer: Router.ErrorRenderer = { status, _ in
        response(status: status, message: standardMessage(for: status))
    }

    /// A seam error as PocketBase words it. `failure` is the message for field problems
    /// ("Failed to create record.", or PocketBase's generic validation message).
    static func response(
        for error: AuthError, failure: String = "An error occurred while validating the submitted data."
    ) -> Response {
        switch error {
        case .invalidCredentials: return response(status: 400, message: "Failed to authenticate.")
        case .emailNotVerified: return response(status: 403, message: "Please verify your email address first.")
        case .userNotFound: return response(status: 404, message: standardMessage(for: 404))
        case .emailExists:
            return response(
                status: 400, message: failure,
                data: ["email": FieldProblem(code: "validation_not_unique", message: "Value must be unique.")])
        case .validation(let fields):
            var data: [String: FieldProblem] = [:]
            for field in fields where data[field.field] == nil {
                data[field.field] = FieldProblem(code: "validation_invalid_value", message: field.message)
            }
            return response(status: 400, message: failure, data: data)
        case .invalidCode, .codeExpired:
            return response(
                status: 400, message: failure,
                data: ["token": FieldProblem(code: "validation_invalid_token", message: "Invalid or expired token.")])
        case .rateLimited(let wait): return response(status: 429, message: standardMessage(for: 429)).retrying(after: wait)
        case .sessionExpired, .sessionNotRefreshable: return response(status: 401, message: standardMessage(for: 401))
        case .notSupported(let capability):
            return response(
                status: 403, message: "\(capability.displayName) is not supported by the backend Gatehouse is connected to.")
        case .magicLinkOpenedElsewhere: return response(status: 401, message: "Failed to authenticate.")
        case .network, .server: return response(status: 502, message: "The account service could not be reached.")
        }
    }

    /// PocketBase's default messages (its `apis` package error constructors).
    static func standardMessage(for status: Int) -> String {
        switch status {
        case 400: "Something went wrong while processing your request."
        case 401: "The request requires valid record authorization token."
        case 403: "The authorized record is not allowed to perform this action."
        case 404: "The requested resource wasn't found."
        case 405: "Method Not Allowed."
        case 413: "Request entity too large."
        case 429: "Too Many Requests."
        default: status >= 500 ? "Something went wrong while processing your request." : "Something went wrong."
        }
    }
}
