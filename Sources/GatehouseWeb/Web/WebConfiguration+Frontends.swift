import OAuth

/// The app frontends Gatehouse serves, as its flags name them.
extension WebConfiguration {
    /// Whether `url` is a page of a SuperTokens frontend Gatehouse serves: on the origin of
    /// `--supertokens-website-url` or of an `--supertokens-app-origin`.
    func isSuperTokensFrontendPage(_ url: String) -> Bool {
        guard CallbackURL.registrationProblem(url) == nil, let origin = DescopeAppAddresses.origin(of: url) else { return false }
        let frontends = superTokensAppOrigins + (superTokensWebsiteURL.map { [$0] } ?? [])
        return frontends.compactMap(DescopeAppAddresses.origin(of:)).contains(origin)
    }

    /// Why `scheme` cannot be the Rownd app's URL scheme (`--rownd-app-scheme`), or nil: lowercase,
    /// a scheme an app callback may use, and not the web's own (`http`, `https`).
    public static func rowndAppSchemeProblem(_ scheme: String) -> String? {
        guard scheme == scheme.lowercased(), !scheme.contains(":"), !scheme.contains("/") else {
            return "use the app's URL scheme alone, in lowercase, e.g. myapp"
        }
        guard !["http", "https"].contains(scheme) else { return "an app's scheme is its own, not \(scheme)" }
        return CallbackURL.registrationProblem("\(scheme)://account/login")
    }
}
