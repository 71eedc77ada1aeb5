import AuthCore
import HTTPServer

/// Where every sign-in path (password, email code, magic link, provider) goes when the backend
/// answers `.mfaRequired`: the pending challenge's id in a short-lived HttpOnly cookie scoped to
/// `/auth/mfa`, then that page, which finishes the sign-in and continues to `continueTo`.
enum SecondStep {
    static let cookieName = "gh_mfa"
    /// The challenge's own lifetime on the embedded backend (DESIGN: 5 minutes).
    static let lifetime = 5 * 60

    /// The redirect to `/auth/mfa`. `continueTo` is a local path (the hosted sign-in page's own URL
    /// with the app's parameters, for an app sign-in).
    static func redirect(_ challenge: MFAChallenge, continueTo: String, secure: Bool) -> Response {
        var response = Response.redirect(to: URLQuery.path("/auth/mfa", [("redirect", continueTo)]))
        response.setCookie(
            Cookie(
                name: cookieName, value: challenge.id, path: "/auth/mfa", maxAge: lifetime, httpOnly: true,
                secure: secure, sameSite: .lax))
        return response
    }

    /// Clears the challenge cookie once the challenge is spent or dead.
    static func clear(_ response: inout Response, secure: Bool) {
        response.setCookie(
            Cookie(name: cookieName, value: "", path: "/auth/mfa", maxAge: 0, httpOnly: true, secure: secure, sameSite: .lax))
    }
}
