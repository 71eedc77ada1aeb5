/// Something a backend may or may not be able to do. Pages ask before offering a feature and show
/// "not supported by this backend" instead of failing.
public enum Capability: String, Sendable, Hashable, CaseIterable, Codable {
    case emailCodeVerification
    case emailLinkVerification
    case profile
    /// Linked provider identities can be listed and unlinked.
    case externalAuths
    /// Gatehouse's own provider flows (sign in with a provider, link one while signed in) can create
    /// and link accounts here from the identity a provider vouched for.
    case externalSignIn
    case impersonation
    case userAdministration
    /// Sessions renew before they expire (`refreshSession()`).
    case sessionRefresh
    /// `listAuthMethods()` reports the sign-in methods the backend offers.
    case authMethods
    /// Accounts can be disabled (refused at sign-in, sessions ended) without deleting them.
    case disableUsers
}

extension Capability {
    /// How pages name the capability in "… is not supported by this backend".
    public var displayName: String {
        switch self {
        case .emailCodeVerification: return "Verifying email with a code"
        case .emailLinkVerification: return "Verifying email with a link"
        case .profile: return "Editing the profile"
        case .externalAuths: return "Linked accounts"
        case .externalSignIn: return "Signing in with a provider"
        case .impersonation: return "Impersonation"
        case .userAdministration: return "User administration"
        case .sessionRefresh: return "Refreshing sessions"
        case .authMethods: return "Listing sign-in methods"
        case .disableUsers: return "Disabling accounts"
        }
    }
}
