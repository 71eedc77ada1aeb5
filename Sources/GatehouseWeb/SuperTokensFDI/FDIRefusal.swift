import AuthCore
import HTTPServer

/// An FDI answer outside its `status` bodies: an HTTP error with `{"message"}`, as
/// supertokens-python sends it. The frontend SDKs act on the 401s: `try refresh token` makes them
/// refresh and retry; `unauthorised` and `token theft detected` end the session they hold.
struct FDIRefusal: Error, Sendable {
    var status: Int
    var message: String
    /// The session's tokens are cleared in the answer (`front-token: remove`).
    var clearsSession = false
    var retryAfter: Int? = nil

    /// No session, or one that ended.
    static let unauthorised = FDIRefusal(status: 401, message: "unauthorised", clearsSession: true)
    /// No token presented at all: nothing to clear, as the SDK answers it.
    static let noSession = FDIRefusal(status: 401, message: "unauthorised")
    /// An expired or unreadable access token: the frontend refreshes and retries.
    static let tryRefresh = FDIRefusal(status: 401, message: "try refresh token")
    /// A rotated refresh token presented again: the session is revoked.
    static let tokenTheft = FDIRefusal(status: 401, message: "token theft detected", clearsSession: true)

    /// A request the API cannot read (the SDK's `BadInputError`).
    static func badInput(_ message: String) -> FDIRefusal { FDIRefusal(status: 400, message: message) }

    /// Gatehouse's budgets: 429 with when to try again (SuperTokens keeps none; the SDKs show their error).
    static func rateLimited(_ retryAfter: Int) -> FDIRefusal {
        FDIRefusal(status: 429, message: "Too many requests; try again in \(retryAfter) s", retryAfter: retryAfter)
    }

    func response(refreshPath: String, secure: Bool) -> Response {
        var response = Response.json(raw: JSONValue.object(["message": .string(message)]).serialized, status: status)
        if let retryAfter { response.headers.replaceOrAdd("Retry-After", "\(retryAfter)") }
        if clearsSession { FDITransport.clear(refreshPath: refreshPath, secure: secure, in: &response) }
        return response
    }
}
