/// Where a mailed link opens, its token added as `t` (or as the fragment): one of Gatehouse's
/// pages, or an app's own address (Descope's `URI`/`redirectUrl`, checked against the allowed ones
/// by the front-end that asked; SuperTokens' website), which passes the token back to the API.
public enum LinkOpening: Sendable, Equatable {
    /// A path on this server (`/auth/magic`, `/auth/enchanted`).
    case page(String)
    /// An app's absolute address.
    case app(String)
    /// An app's absolute address with the token as its fragment, as SuperTokens' frontends read a
    /// magic link's `linkCode` (`…/verify?preAuthSessionId=…#token`): browsers never send it on.
    case appFragment(String)
    /// A path on this server with the token as its fragment (the Rownd Hub's
    /// `/account/login?preAuthSessionId=…#token`, which opens in the app's web view or hands on to the app).
    case pageFragment(String)

    /// The magic-link page, where a sign-in link opens by default.
    public static let magicLinkPage = LinkOpening.page("/auth/magic")

    /// The link for `token`; `page` makes a path absolute (the public URL in front).
    public func address(token: String, page: (String) -> String) -> String {
        switch self {
        case .page(let path): return page("\(path)?t=\(token)")
        case .app(let url): return url + (url.contains("?") ? "&" : "?") + "t=\(token)"
        case .appFragment(let url): return url + "#" + token
        case .pageFragment(let path): return page(path) + "#" + token
        }
    }
}
