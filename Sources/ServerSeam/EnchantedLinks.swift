import AuthCore

/// A backend whose sign-in links can open another page than the magic-link one — an app's own
/// address (Descope's `URI`), or an enchanted link (Descope's), which the person opens in any browser to approve a sign-in an app is polling
/// for. The link is bound, like a magic link, to a nonce only the polling app holds; the backend
/// tells which binding a live link carries, and the app signs in with the link and that nonce.
/// The embedded backend has it.
public protocol EnchantedLinks: AuthAPI {
    /// `requestMagicLink`, the mailed link opening `link` (with the token as `t`); the account a
    /// right link creates gets `signUpProfile` (Descope's sign-up `user`).
    func requestMagicLink(
        email: String, allowSignUp: Bool, browserBinding: String, opening link: LinkOpening, signUpProfile: Profile?
    ) async throws
    /// The binding a live link was issued with; nil for an unknown, spent or expired one.
    func browserBinding(ofMagicLink token: String) async throws -> String?
}
