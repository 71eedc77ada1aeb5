import HTTPServer

/// Cross-origin access for web apps on SuperTokens' web SDK (`--supertokens-app-origin`): their
/// origins, and only theirs, are answered with credentials allowed and the headers the SDK sends
/// (supertokens-python's `get_cors_allowed_headers`, plus `fdi-version` and `content-type`).
struct FDICORS: Sendable {
    let origins: Set<String>

    static let allowedHeaders = "content-type, rid, fdi-version, st-auth-mode, anti-csrf, authorization"
    static let allowedMethods = "GET, POST, PUT, DELETE, OPTIONS"

    /// The preflight for every path under `basePath`.
    func register(on router: inout Router, basePath: String) {
        router.on(.options, basePath + "/*") { request, _ in
            var response = Response.empty(status: 204)
            if apply(to: &response, for: request) {
                response.headers.replaceOrAdd("Access-Control-Allow-Methods", Self.allowedMethods)
                response.headers.replaceOrAdd("Access-Control-Allow-Headers", Self.allowedHeaders)
                response.headers.replaceOrAdd("Access-Control-Max-Age", "600")
            }
            return response
        }
    }

    /// Allows the request's origin in `response` when it is an app's; whether it was.
    @discardableResult
    func apply(to response: inout Response, for request: Request) -> Bool {
        response.headers.replaceOrAdd("Vary", "Origin")
        guard let origin = request.headers["Origin"], origins.contains(origin) else { return false }
        response.headers.replaceOrAdd("Access-Control-Allow-Origin", origin)
        response.headers.replaceOrAdd("Access-Control-Allow-Credentials", "true")
        return true
    }
}
