import Foundation
import HTTPServer

/// How a SuperTokens frontend carries its tokens: headers (`st-auth-mode: header`, the mobile
/// SDKs: `st-access-token`/`st-refresh-token` out, `Authorization: Bearer` in) or cookies
/// (`sAccessToken` on `/`, `sRefreshToken` only on the refresh path). Every session answer also
/// carries `front-token`, the access token's payload for the frontend to read, and names what it
/// set in `Access-Control-Expose-Headers`, as supertokens-python writes them.
enum FDITransport: Sendable {
    case header
    case cookie

    static let accessCookie = "sAccessToken"
    static let refreshCookie = "sRefreshToken"
    /// The cookies' lifetime: a year, as the SDK sets them (the tokens carry their own expiry).
    static let cookieLifetime = 365 * 24 * 3600

    /// A new session's transport: cookies only when the frontend asks (`st-auth-mode: cookie`).
    init(forNewSessionOf request: Request) {
        self = request.headers["st-auth-mode"]?.lowercased() == "cookie" ? .cookie : .header
    }

    /// The token of `kind` the request carries and how: the `Authorization` bearer first, then the cookie.
    static func presented(_ request: Request, refresh: Bool) -> (token: String, transport: FDITransport)? {
        if let value = request.headers["Authorization"], value.hasPrefix("Bearer ") {
            let token = value.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
            if !token.isEmpty { return (token, .header) }
        }
        let cookie = request.cookies[refresh ? refreshCookie : accessCookie]?.removingPercentEncoding ?? ""
        return cookie.isEmpty ? nil : (cookie, .cookie)
    }

    /// Writes a session's tokens and its `front-token` into `response`; `refreshToken` nil leaves the
    /// refresh token as the frontend holds it (a claim changed, not the session).
    func write(
        access: String, refreshToken: String?, frontToken: String, refreshPath: String, secure: Bool,
        into response: inout Response
    ) {
        Self.expose("front-token", frontToken, in: &response)
        switch self {
        case .header:
            Self.expose("st-access-token", access, in: &response)
            if let refreshToken { Self.expose("st-refresh-token", refreshToken, in: &response) }
        case .cookie:
            response.setCookie(Self.cookie(Self.accessCookie, access, path: "/", secure: secure, maxAge: Self.cookieLifetime))
            if let refreshToken {
                response.setCookie(
                    Self.cookie(Self.refreshCookie, refreshToken, path: refreshPath, secure: secure, maxAge: Self.cookieLifetime))
            }
        }
    }

    /// Clears the session in `transport`, or in both (nil), as the SDK does when a session ends or
    /// a refresh is refused: `front-token: remove` (on which the frontends drop the header tokens
    /// they hold; the SDK's empty `st-access-token` and `st-refresh-token` are left out, as
    /// libmicrohttpd sends no empty header value) and, for cookies, expired ones.
    static func clear(_ transport: FDITransport? = nil, refreshPath: String, secure: Bool, in response: inout Response) {
        expose("front-token", "remove", in: &response)
        guard transport != .header else { return }
        response.setCookie(cookie(accessCookie, "", path: "/", secure: secure, maxAge: 0))
        response.setCookie(cookie(refreshCookie, "", path: refreshPath, secure: secure, maxAge: 0))
    }

    /// Sets `name` and lists it in `Access-Control-Expose-Headers`, so a browser app may read it.
    static func expose(_ name: String, _ value: String, in response: inout Response) {
        response.headers.replaceOrAdd(name, value)
        let exposed = response.headers["Access-Control-Expose-Headers"].map { $0 + "," + name } ?? name
        response.headers.replaceOrAdd("Access-Control-Expose-Headers", exposed)
    }

    private static func cookie(_ name: String, _ value: String, path: String, secure: Bool, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, path: path, maxAge: maxAge, httpOnly: true, secure: secure, sameSite: .lax)
    }
}
