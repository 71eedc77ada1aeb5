import HTTPServer

/// PocketBase's error envelope, `{"data": {}, "message": TEXT, "status": N}`, for everything under
/// `/api` that is not InsForge's `/api/auth`: unknown routes, wrong methods and unreadable bodies
/// answer as PocketBase itself does, so its SDKs decode them (WIRE.md).
enum PocketBaseError {
    private struct Body: Encodable {
        var data: [String: String] = [:]
        var message: String
        var status: Int
    }

    static func response(status: Int, message: String) -> Response {
        (try? .json(Body(message: message, status: status), status: status)) ?? .text(message, status: status)
    }

    /// The router's errors in PocketBase's words for each status.
    static let renderer: Router.ErrorRenderer = { status, _, _ in
        response(status: status, message: standardMessage(for: status))
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
