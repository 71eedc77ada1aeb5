import HTTPServer

/// Response headers every Gatehouse reply carries (DESIGN.md security defaults, OWASP secure headers).
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; "
        + "frame-ancestors 'none'; form-action 'self'"

    /// Adds the headers; HTML and JSON replies (personal data) are never cached.
    static func apply(to response: inout Response) {
        // A page may widen its own policy (the hosted sign-in page allows its app's callback in form-action).
        if response.headers["Content-Security-Policy"] == nil {
            response.headers.replaceOrAdd("Content-Security-Policy", contentSecurityPolicy)
        }
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        response.headers.replaceOrAdd("X-Frame-Options", "DENY")
        response.headers.replaceOrAdd("Cross-Origin-Opener-Policy", "same-origin")
        let contentType = response.headers["Content-Type"] ?? ""
        if contentType.hasPrefix("text/html") || contentType.hasPrefix("application/json") {
            response.headers.replaceOrAdd("Cache-Control", "no-store")
        }
    }
}
