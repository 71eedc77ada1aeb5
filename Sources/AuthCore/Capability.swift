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
    /// "Forgot password?": a mailed link (and code) sets a new password.
    case passwordReset
    /// A signed-in person replaces their password with the current one.
    case passwordChange
    /// A signed-in person moves the account to another address, confirmed from it.
    case emailChange
    /// Sign-in with a mailed one-time code.
    case emailOTP
    /// Sign-in with a mailed single-use link.
    case magicLink
    /// Authenticator-app codes (RFC 6238) and recovery codes.
    case totp
    /// A second sign-in step for accounts that ask for one.
    case mfa
    /// A person lists and ends their own sessions.
    case sessionList
    /// Account changes can be followed as they happen, whoever made them: the server's feed
    /// (ServerSeam's `UserChangeSource`), which only the embedded backend keeps.
    case userChanges
    /// Passkeys (WebAuthn credentials): registering, signing in, the list. Apps run the ceremonies'
    /// server halves through `AuthClient` over a backend that serves them over HTTP
    /// (`DescopeBackend`); the embedded backend's are run by the server itself (its pages and APIs),
    /// so in process its `passkey…` calls answer `notSupported`.
    case passkeys
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
        case .passwordReset: return "Resetting a forgotten password"
        case .passwordChange: return "Changing the password"
        case .emailChange: return "Changing the email address"
        case .emailOTP: return "Signing in with an emailed code"
        case .magicLink: return "Signing in with an emailed link"
        case .totp: return "Two-step sign-in with an authenticator app"
        case .mfa: return "Two-step sign-in"
        case .sessionList: return "Listing your sessions"
        case .userChanges: return "Following account changes live"
        case .passkeys: return "Signing in with a passkey"
        }
    }
}
