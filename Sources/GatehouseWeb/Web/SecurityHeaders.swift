import HTTPServer

/// Response headers every Gatehouse reply carries (DESIGN.md security defaults, OWASP secure headers).
enum SecurityHeaders {
    static let contentSecurityPolicy = policy(images: "'self' https: data:")
    /// The console never loads an image from elsewhere: a user's avatar URL could be any https
    /// address, and loading it would tell its owner which staff opened the user, and when.
    static let consoleContentSecurityPolicy = policy(images: "'self' data:")

    private static func policy(images: String) -> String {
        "default-src 'self'; img-src \(images); object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'"
    }

    /// Adds the headers; HTML and JSON replies (personal data) are never cached. Pages under `/_/`
    /// (console, mailbox, test provider) get the policy without remote images.
    static func apply(to response: inout Response, path: String) {
        // A page may widen its own policy (the hosted sign-in page allows its app's callback in form-action).
        let ownPolicy = response.headers["Content-Security-Policy"]
        if ownPolicy == nil {
            let policy = path == "/_" || path.hasPrefix("/_/") ? consoleContentSecurityPolicy : contentSecurityPolicy
            response.headers.replaceOrAdd("Content-Security-Policy", policy)
        }
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        // The console's preview of a hosted page is the one page framed (by the console itself). Only a
        // page's own policy can allow it: the defaults never do, and every reply passes here (Foundation's
        // `contains` on each was 2.7 % of a Descope refresh).
        let framedBySelf = ownPolicy?.contains("frame-ancestors 'self'") == true
        response.headers.replaceOrAdd("X-Frame-Options", framedBySelf ? "SAMEORIGIN" : "DENY")
        response.headers.replaceOrAdd("Cross-Origin-Opener-Policy", "same-origin")
        let contentType = response.headers["Content-Type"] ?? ""
        if contentType.hasPrefix("text/html") || contentType.hasPrefix("application/json") {
            response.headers.replaceOrAdd("Cache-Control", "no-store")
        }
    }
}
