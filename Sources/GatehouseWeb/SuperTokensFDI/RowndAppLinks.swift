import Foundation
import HTTPServer
import OAuth

/// Where the Rownd Hub may send people on: a magic link opened on the phone hands on to the app's
/// own scheme (`--rownd-app-scheme`, the app's `Rownd.config.deepLinkScheme`), and a post-sign-in
/// redirect may name that scheme or a page of a SuperTokens frontend Gatehouse serves
/// (`--supertokens-website-url`, `--supertokens-app-origin`). Nothing a request names decides the
/// target, so neither the Hub nor its link page is an open redirect.
struct RowndAppLinks: Sendable {
    /// The SDK's deep-link path (`SmartLinks.hubUrl`): `{scheme}://account/login` on the phone, which
    /// the SDK opens as `{Hub origin}/account/login` in its web view (the path replaces the Hub's).
    static let loginPath = "/account/login"

    let configuration: WebConfiguration

    /// The app's own address for a magic link's flow, which the SDK opens in the Hub's web view:
    /// the app's scheme, the SDK's path and the flow's two ids (the link code follows as the
    /// fragment, added by the page, as browsers never send it).
    func appLink(preAuthSessionID: String, tenantID: String) -> String {
        "\(configuration.rowndAppScheme):/\(Self.loginPath)?"
            + FormEncoding.encode([("preAuthSessionId", preAuthSessionID), ("tenantId", tenantID)])
    }

    /// Whether the Hub may send a signed-in person to `url`: the app's scheme, or a page on a
    /// configured frontend's origin; never an address only the request names.
    func allowsRedirect(_ url: String) -> Bool {
        guard CallbackURL.registrationProblem(url) == nil, let scheme = URLComponents(string: url)?.scheme?.lowercased()
        else { return false }
        return scheme == configuration.rowndAppScheme || configuration.isSuperTokensFrontendPage(url)
    }
}
