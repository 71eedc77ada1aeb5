import Accounts
import Foundation
import HTTPServer

/// How a console session travels: the `gh_console` cookie for the pages, `Authorization: Bearer`
/// for the JSON admin API — each its own kind of token (`ConsoleSessions.Door`).
extension ConsoleSessions {
    static let cookieName = "gh_console"

    /// The superuser behind the console cookie, or nil.
    func fromCookie(_ request: Request) async -> Staff? {
        await lookUp(token: request.cookies[Self.cookieName], at: .console)
    }

    /// The superuser behind `Authorization: Bearer TOKEN` (an admin-API token), or nil. Cookies
    /// are never accepted on the JSON API, so a cross-site page cannot drive it with a staff
    /// member's browser, and a console cookie is no bearer token.
    func fromBearer(_ request: Request) async -> Staff? {
        guard let token = request.bearerToken else { return nil }
        return await lookUp(token: token, at: .adminAPI)
    }

    func cookie(token: String) -> Cookie {
        Cookie(
            name: Self.cookieName, value: token, maxAge: Int(Self.lifetime), httpOnly: true,
            secure: secureCookies, sameSite: .strict)
    }

    /// The cookie that signs the browser out of the console.
    var clearedCookie: Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, httpOnly: true, secure: secureCookies, sameSite: .strict)
    }
}
