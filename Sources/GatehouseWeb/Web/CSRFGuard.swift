import Foundation
import HTTPServer
import Secrets

/// Cross-site request forgery defence for form posts: a token derived from a per-browser secret
/// cookie must come back in `_csrf`, and cross-site `Sec-Fetch-Site`/`Origin` headers are refused.
struct CSRFGuard: Sendable {
    static let cookieName = "gh_csrf"
    static let fieldName = "_csrf"

    let hasher: KeyedHash

    /// The form token for a browser's secret; a keyed hash, so the cookie itself never appears in pages.
    func token(forSeed seed: String) -> String {
        hasher.hex("csrf:" + seed)
    }

    /// True when a POST may proceed: same-site headers and a token matching the browser's cookie.
    func accepts(_ request: Request, form: Parameters) throws(RequestError) -> Bool {
        guard isSameSite(request) else { return false }
        guard let seed = request.cookies[Self.cookieName], !seed.isEmpty,
            let sent = try form.single(Self.fieldName)
        else { return false }
        return KeyedHash.constantTimeEquals(sent, token(forSeed: seed))
    }

    /// Browsers send `Sec-Fetch-Site` on POST: it alone decides when present. Older browsers send
    /// only `Origin`, which must then name this host. (Under `Referrer-Policy: no-referrer` Chromium
    /// sends `Origin: null` even for same-origin posts, so `Sec-Fetch-Site` must take precedence.)
    private func isSameSite(_ request: Request) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased() {
            return site == "same-origin" || site == "none"
        }
        guard let origin = request.headers["Origin"] else { return true }
        guard let host = request.headers["Host"]?.lowercased(),
            let url = URL(string: origin), var originHost = url.host?.lowercased()
        else { return false }
        if originHost.contains(":"), !originHost.hasPrefix("[") { originHost = "[\(originHost)]" }
        let originAuthority = originHost + (url.port.map { ":\($0)" } ?? "")
        return originAuthority == host || (url.port == nil && host == originHost + ":80")
    }
}

extension CSRFGuard {
    /// The browser's CSRF secret cookie: HttpOnly so scripts never read it, Lax so top-level links work.
    func cookie(seed: String, secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: seed, httpOnly: true, secure: secure, sameSite: .lax)
    }

    /// Replaces the browser's CSRF secret (at sign-in and sign-out) so a token planted before
    /// sign-in is worthless after it.
    func rotate(in response: inout Response, secure: Bool) {
        response.setCookie(cookie(seed: SecureRandom.token(), secure: secure))
    }
}
