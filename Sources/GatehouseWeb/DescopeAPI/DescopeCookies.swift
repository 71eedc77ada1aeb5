import HTTPServer

/// Descope's token cookies, for a project whose tokens are managed in cookies
/// (`--descope-token-cookies`): `DS` holds the session JWT, `DSR` the refresh JWT, both HttpOnly and
/// `SameSite=Strict` as Descope sets them (`Secure` behind TLS). Every call still needs
/// `Authorization: Bearer <projectId>`, which a cross-site form cannot send.
struct DescopeCookies: Sendable {
    static let session = "DS"
    static let refresh = "DSR"

    let secure: Bool

    /// `DS`, and `DSR` when the answer hands out a refresh JWT (a `refresh` leaves the cookie as it is).
    func set(session: String, sessionMaxAge: Int, refresh: String?, refreshMaxAge: Int, on response: inout Response) {
        response.setCookie(cookie(Self.session, session, maxAge: sessionMaxAge))
        if let refresh { response.setCookie(cookie(Self.refresh, refresh, maxAge: refreshMaxAge)) }
    }

    /// Both cookies deleted (sign-out).
    func clear(on response: inout Response) {
        response.setCookie(cookie(Self.session, "", maxAge: 0))
        response.setCookie(cookie(Self.refresh, "", maxAge: 0))
    }

    private func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, path: "/", maxAge: maxAge, httpOnly: true, secure: secure, sameSite: .strict)
    }
}
