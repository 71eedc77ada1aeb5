import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// How a session reaches an app on InsForge's SDKs, by `client_type`: the access token always in
/// the body; the refresh token in the body for `mobile`, `desktop` and `server`, or for `web` in the
/// HttpOnly `insforge_refresh_token` cookie (path `/api/auth`, 7 days) with a `csrfToken` the app
/// sends back as `X-CSRF-Token` on refresh and logout.
struct InsForgeDelivery: Sendable {
    static let refreshCookie = "insforge_refresh_token"

    let env: PageEnvironment
    let tokens: InsForgeTokens

    /// The client type the request names (`?client_type=`); InsForge's SDKs default to `mobile`.
    static func clientType(_ request: Request, fallback: ClientType = .mobile) throws -> ClientType {
        guard let value = try request.query.single("client_type") else { return fallback }
        guard let type = ClientType(rawValue: value) else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "client_type must be web, mobile, desktop or server.")
        }
        return type
    }

    /// An auth response for `user` with the session's tokens, the refresh token where the client keeps it.
    func response(
        _ user: User, tokens issued: IssuedTokens, client: ClientType, redirectTo: String? = nil, status: Int = 200
    ) async throws -> Response {
        let providers = (try? await ProviderLinks(env: env.accounts, via: nil).links(of: user.id).map(\.provider)) ?? []
        let body = AuthResponse(
            user: InsForgeUser(user, providers: providers), accessToken: issued.accessToken,
            refreshToken: client == .web ? nil : issued.refreshToken,
            csrfToken: client == .web ? tokens.csrfToken(for: issued.refreshToken) : nil,
            requireEmailVerification: false, redirectTo: redirectTo)
        var response = try Response.json(body, status: status)
        if client == .web { response.setCookie(cookie(issued.refreshToken, maxAge: Int(InsForgeTokens.refreshLifetime))) }
        return response
    }

    /// The refresh token a request presents: `refreshToken` or `refresh_token` in the body, else the
    /// web cookie — which counts only with its matching `X-CSRF-Token` (a cross-site form cannot send it).
    func presentedRefreshToken(_ request: Request, body: [String: JSONValue]) throws -> String? {
        for key in ["refreshToken", "refresh_token"] {
            if case .string(let token) = body[key], !token.isEmpty { return token }
        }
        return try checkedCookie(request)
    }

    /// The web refresh cookie, when the request carries it with its matching `X-CSRF-Token` (a
    /// cross-site form sends the cookie but cannot send the header); nil without the cookie. Refresh
    /// and logout both ask it, so neither can be forged from another site.
    func checkedCookie(_ request: Request) throws -> String? {
        guard let cookie = request.cookies[Self.refreshCookie], !cookie.isEmpty else { return nil }
        guard let header = request.headers["X-CSRF-Token"],
            KeyedHash.constantTimeEquals(header, tokens.csrfToken(for: cookie))
        else { throw InsForgeAnswer(403, "CSRF_INVALID", "The X-CSRF-Token header is missing or does not match.") }
        return cookie
    }

    /// Clears the web refresh cookie.
    func clearCookie(_ response: inout Response) { response.setCookie(cookie("", maxAge: 0)) }

    private func cookie(_ value: String, maxAge: Int) -> Cookie {
        // SameSite=None needs Secure; on plain-HTTP loopback the cookie is Lax (same-site apps only).
        let secure = env.configuration.usesTLS
        return Cookie(
            name: Self.refreshCookie, value: value, path: "/api/auth", maxAge: maxAge, httpOnly: true, secure: secure,
            sameSite: secure ? .none : .lax)
    }
}

/// A finished InsForge answer thrown from inside a helper; route wrappers send it as it is.
struct InsForgeAnswer: Error {
    let response: Response

    init(_ status: Int, _ code: String, _ message: String, nextActions: String? = nil) {
        response = InsForgeError.response(status, code, message, nextActions: nextActions)
    }
}
