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
    /// The claims that failed (`claimValidationErrors`), on the SDK's 403 `invalid claim`.
    var claimValidationErrors: JSONValue? = nil

    /// No session, or one that ended.
    static let unauthorised = FDIRefusal(status: 401, message: "unauthorised", clearsSession: true)
    /// No token presented at all: nothing to clear, as the SDK answers it.
    static let noSession = FDIRefusal(status: 401, message: "unauthorised")
    /// An expired or unreadable access token: the frontend refreshes and retries.
    static let tryRefresh = FDIRefusal(status: 401, message: "try refresh token")
    /// A rotated refresh token presented again: the session is revoked.
    static let tokenTheft = FDIRefusal(status: 401, message: "token theft detected", clearsSession: true)

    /// A first factor's token where a session is needed: its second step is still owed (the
    /// SDK's MFA claim, `st-mfa`, unmet), in supertokens-python's words.
    static let secondStepOwed = FDIRefusal(
        status: 403, message: "invalid claim",
        claimValidationErrors: .array([
            .object(["id": "st-mfa", "reason": .object(["message": "MFA requirement for auth is not satisfied"])])
        ]))

    /// A request the API cannot read (the SDK's `BadInputError`).
    static func badInput(_ message: String) -> FDIRefusal { FDIRefusal(status: 400, message: message) }

    /// Gatehouse's budgets: 429 with when to try again (SuperTokens keeps none; the SDKs show their error).
    static func rateLimited(_ retryAfter: Int) -> FDIRefusal {
        FDIRefusal(status: 429, message: "Too many requests; try again in \(retryAfter) s", retryAfter: retryAfter)
    }

    func response(refreshPath: String, secure: Bool) -> Response {
        var body: [String: JSONValue] = ["message": .string(message)]
        if let claimValidationErrors { body["claimValidationErrors"] = claimValidationErrors }
        var response = Response.json(raw: JSONValue.object(body).serialized, status: status)
        if let retryAfter { response.headers.replaceOrAdd("Retry-After", "\(retryAfter)") }
        if clearsSession { FDITransport.clear(refreshPath: refreshPath, secure: secure, in: &response) }
        return response
    }
}
