import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// The hosted sign-in page's app side: after a successful sign-in, hands the app a one-time
/// code (60 s, single use, bound to its PKCE challenge) on its registered callback.
struct HostedSignIn: Sendable {
    let feature: OAuthFeature

    /// The callback URL to send the browser to, with `insforge_code` or `code` (or, in an app's legacy
    /// mode without PKCE, the tokens older SDKs read).
    func completion(for user: User, request app: AppSignInRequest, httpRequest: Request) async throws -> String {
        let codes = AppCodes(env: feature.env.accounts, hasher: feature.hasher)
        guard let codeChallenge = app.codeChallenge else {
            let session = try await codes.openLegacySession(for: user, appID: app.appID, request: httpRequest)
            let tokens = try await feature.tokens.issue(for: session, request: httpRequest)
            return CallbackURL.appending(
                [
                    ("access_token", tokens.accessToken), ("user_id", user.id.rawValue),
                    ("email", user.email), ("name", user.profile.name ?? "")
                ], to: app.callbackURL)
        }
        let code = try await codes.issue(
            for: user, appID: app.appID, codeChallenge: codeChallenge, clientType: app.clientType,
            callbackURL: app.callbackURL, lifetime: feature.settings.appCodeLifetime, request: httpRequest)
        return CallbackURL.appending([(app.callbackCodeName, code)], to: app.callbackURL)
    }

    /// A 303 to the app's callback. The redirect ends a form post on Gatehouse's page, so the
    /// page that held the form allowed this destination in its `form-action` (see `pageCSP`).
    func redirect(for user: User, request app: AppSignInRequest, httpRequest: Request) async throws -> Response {
        Response.redirect(to: try await completion(for: user, request: app, httpRequest: httpRequest))
    }

    /// The same for a browser that is already signed in (never an impersonation:
    /// `AppCodes.checkMayHandOver`).
    func redirect(continuing signedIn: SignedIn, request app: AppSignInRequest, httpRequest: Request) async throws
        -> Response
    {
        Response.redirect(to: try await completion(continuing: signedIn, request: app, httpRequest: httpRequest))
    }

    /// The callback URL for a browser that is already signed in (impersonation refused, as above).
    func completion(continuing signedIn: SignedIn, request app: AppSignInRequest, httpRequest: Request) async throws
        -> String
    {
        try AppCodes.checkMayHandOver(signedIn)
        return try await completion(for: signedIn.user, request: app, httpRequest: httpRequest)
    }

    /// The sign-in page's CSP with the app's callback added to `form-action` (browsers apply
    /// `form-action` to the redirects that follow a form post), and an `http://localhost` logo to
    /// `img-src` (https images are allowed on every account page already).
    static func pageCSP(for app: AppSignInRequest, logoURL: String? = nil) -> String? {
        guard let source = CallbackURL.cspSource(for: app.callbackURL) else { return nil }
        return allowingLogo(
            logoURL,
            in: SecurityHeaders.contentSecurityPolicy.replacingOccurrences(
                of: "form-action 'self'", with: "form-action 'self' \(source)"))
    }

    /// The console's preview of the page: framed by Gatehouse's own pages only.
    static func previewCSP(logoURL: String?) -> String {
        allowingLogo(
            logoURL,
            in: SecurityHeaders.contentSecurityPolicy.replacingOccurrences(
                of: "frame-ancestors 'none'", with: "frame-ancestors 'self'"))
    }

    private static func allowingLogo(_ logoURL: String?, in policy: String) -> String {
        guard let logoURL, logoURL.lowercased().hasPrefix("http:"), let origin = CallbackURL.cspSource(for: logoURL) else {
            return policy
        }
        return policy.replacingOccurrences(of: "img-src 'self'", with: "img-src 'self' \(origin)")
    }
}
